#include "partition/Worker.h"

#include <sched.h>

#include <cerrno>
#include <cstring>

#include "npuwb/Error.h"

namespace npuwb::partition {

Worker::Worker(std::string unit, std::vector<int> cpus, size_t queueCapacity)
    : unit_(std::move(unit)), cpus_(std::move(cpus)), queue_(queueCapacity) {
    std::promise<std::string> started;  // empty, or why pinning failed
    auto pinned = started.get_future();
    thread_ = std::thread([this, &started] {
        std::string problem;
        if (!cpus_.empty()) {
            cpu_set_t set;
            CPU_ZERO(&set);
            for (int cpu : cpus_)
                if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0) {
                std::string list;
                for (int cpu : cpus_) list.append(list.empty() ? "" : ",").append(std::to_string(cpu));
                problem = "unit '" + unit_ + "': cannot pin its worker to CPU " + list + ": " + std::strerror(errno);
            }
        }
        started.set_value(problem);
        if (problem.empty()) loop();
    });
    std::string problem = pinned.get();
    if (!problem.empty()) {
        thread_.join();
        failInput(problem);
    }
}

Worker::~Worker() {
    queue_.close();
    if (thread_.joinable()) thread_.join();
}

void Worker::post(std::function<void()> task, int64_t priority) {
    if (!queue_.push(std::move(task), priority)) fail(ErrorKind::Internal, "worker of unit '" + unit_ + "' has stopped");
}

void Worker::loop() {
    std::function<void()> task;
    while (queue_.pop(task)) {
        task();
        task = nullptr;
    }
}

}  // namespace npuwb::partition
