#pragma once
// Stopping a run when the client goes away: sshd sends SIGHUP when the channel drops, a cancel sends SIGTERM.
// The handlers only raise a flag that the engine checks between nodes; a watchdog ends the process when a step
// that cannot be interrupted (model import, a long kernel) does not return within the grace period.
#include <atomic>
#include <csignal>

namespace npuwb::agent {

/// Installs handlers for SIGTERM, SIGHUP, SIGINT and SIGPIPE (ignored as a signal; seen as a failed write).
void installStopHandlers();
void requestStop(int signal);
/// The flag for ProfileControl::cancel.
const std::atomic<bool>& stopFlag();
/// The signal that asked to stop (0 when none).
int stopSignal();
/// Exit code for a stop: 128 + signal, as a shell reports it.
int stopExitCode();
/// Starts a detached watchdog thread: once a stop was requested, the process exits after `graceMs`.
void startStopWatchdog(int graceMs);

}  // namespace npuwb::agent
