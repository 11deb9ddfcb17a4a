#include "jobs/Job.h"

namespace npuwb::ui {

void Job::setRunning(bool running) {
    if (running) cancel_ = false;
    if (running == running_) return;
    running_ = running;
    emit runningChanged(running);
}

}  // namespace npuwb::ui
