// SIGHUP from the first instruction. The daemon reloads its configuration on SIGHUP, but its
// handler exists only once the service group runs, some tens of milliseconds after exec; before
// it, SIGHUP's default action killed the daemon (exit 129). A constructor runs before the Swift
// runtime and `main`, and sets SIGHUP to ignored for `serve` and `exec` (and no subcommand, which
// is `serve`): the file is read at start anyway, and the service's own handler (UnixSignals,
// which expects the signal ignored) takes over. Other subcommands keep the default, so a closed
// terminal still ends `authemu codes --follow`. `exec`'s child gets default dispositions back
// (ChildProcess.swift, posix_spawnattr_setsigdefault).
#include "early_signals.h"

#include <signal.h>
#include <string.h>

static int sighup_ignored = 0;

__attribute__((constructor)) static void authemu_ignore_early_sighup(int argc, char **argv, char **envp) {
    (void)envp;
    const char *command = NULL;
    for (int index = 1; index < argc && argv != NULL && argv[index] != NULL; index++) {
        if (argv[index][0] != '-') {
            command = argv[index];
            break;
        }
    }
    if (command == NULL || strcmp(command, "serve") == 0 || strcmp(command, "exec") == 0) {
        signal(SIGHUP, SIG_IGN);
        sighup_ignored = 1;
    }
}

int authemu_early_sighup_ignored(void) { return sighup_ignored; }
