#include "StopSignals.h"

#include <unistd.h>

#include <chrono>
#include <thread>

namespace npuwb::agent {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

extern "C" void onStopSignal(int signal) {
    int expected = 0;
    g_signal.compare_exchange_strong(expected, signal);
    g_stop.store(true);
}

}  // namespace

void installStopHandlers() {
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGTERM, SIGHUP, SIGINT}) sigaction(s, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);  // a write to a closed channel fails with EPIPE instead
}

void requestStop(int signal) { onStopSignal(signal); }

const std::atomic<bool>& stopFlag() { return g_stop; }

int stopSignal() { return g_signal.load(); }

int stopExitCode() { return 128 + (g_signal.load() ? g_signal.load() : SIGTERM); }

void startStopWatchdog(int graceMs) {
    std::thread([graceMs] {
        while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::this_thread::sleep_for(std::chrono::milliseconds(graceMs));
        _exit(stopExitCode());
    }).detach();
}

}  // namespace npuwb::agent
