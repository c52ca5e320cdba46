// Signals from the first instruction. The daemon reloads its configuration on SIGHUP and stops
// gracefully on SIGTERM / SIGINT, but those handlers exist only once the service group runs, some
// tens of milliseconds after exec (longer while a big database opens or an import runs). Before
// them, SIGHUP's default action killed the daemon (exit 129) and SIGTERM's ended it uncleanly.
// A constructor runs before the Swift runtime and `main`. For `serve` (and no subcommand, which
// is `serve`) it ignores SIGHUP (the file is read at start anyway) and records SIGTERM / SIGINT,
// which `serve` checks after each start-up step and once its own handlers are in place, then
// stops as it would have later: gracefully, exit 0. The service group's handlers (UnixSignals,
// which sets the dispositions itself) then take over. `exec` ignores SIGHUP only: its own SIGTERM
// handling forwards the signal to a child that does not exist yet. Other subcommands keep the
// defaults, so a closed terminal still ends `authemu codes --follow`. `exec`'s child gets default
// dispositions back (ChildProcess.swift, posix_spawnattr_setsigdefault).
#include "early_signals.h"

#include <signal.h>
#include <string.h>

static int sighup_ignored = 0;
static volatile sig_atomic_t stop_signal = 0;

static void authemu_record_stop(int signal_number) { stop_signal = signal_number; }

static void authemu_record_stops(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = authemu_record_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
}

__attribute__((constructor)) static void authemu_early_signals(int argc, char **argv, char **envp) {
    (void)envp;
    const char *command = NULL;
    for (int index = 1; index < argc && argv != NULL && argv[index] != NULL; index++) {
        if (argv[index][0] != '-') {
            command = argv[index];
            break;
        }
    }
    int serve = command == NULL || strcmp(command, "serve") == 0;
    if (serve || strcmp(command, "exec") == 0) {
        signal(SIGHUP, SIG_IGN);
        sighup_ignored = 1;
    }
    if (serve) authemu_record_stops();
}

int authemu_early_sighup_ignored(void) { return sighup_ignored; }

int authemu_early_stop_signal(void) { return stop_signal; }
