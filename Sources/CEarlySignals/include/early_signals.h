#ifndef AUTHEMU_EARLY_SIGNALS_H
#define AUTHEMU_EARLY_SIGNALS_H

/// 1 when the process start ignored SIGHUP for `serve` or `exec` (see early_signals.c).
int authemu_early_sighup_ignored(void);

/// The SIGTERM or SIGINT received before the service group's handlers took over, else 0.
int authemu_early_stop_signal(void);

#endif
