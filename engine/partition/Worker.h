#pragma once
// A worker standing in for a compute unit: one thread pinned to the unit's CPUs (sched_setaffinity), fed by a
// bounded queue of tasks. Stages of one unit run on its worker one after another, as on a real unit; when several
// frames wait for it, the oldest frame goes first (the task's priority is its frame number).
#include <condition_variable>
#include <cstdint>
#include <map>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace npuwb::partition {

/// A fixed-capacity queue serving the lowest priority value first, first come first served among equals: push
/// blocks while it is full, pop blocks while it is empty; close() ends both.
template <class T> class BoundedQueue {
public:
    explicit BoundedQueue(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}
    /// False when the queue was closed.
    bool push(T item, int64_t priority = 0) {
        std::unique_lock lock(mutex_);
        notFull_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
        if (closed_) return false;
        items_.emplace(std::pair{priority, sequence_++}, std::move(item));
        notEmpty_.notify_one();
        return true;
    }
    /// False when the queue was closed and is empty.
    bool pop(T& out) {
        std::unique_lock lock(mutex_);
        notEmpty_.wait(lock, [&] { return closed_ || !items_.empty(); });
        if (items_.empty()) return false;
        out = std::move(items_.begin()->second);
        items_.erase(items_.begin());
        notFull_.notify_one();
        return true;
    }
    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        notEmpty_.notify_all();
        notFull_.notify_all();
    }
    size_t capacity() const { return capacity_; }

private:
    const size_t capacity_;
    std::mutex mutex_;
    std::condition_variable notEmpty_, notFull_;
    std::map<std::pair<int64_t, uint64_t>, T> items_;  // (priority, arrival) -> item
    uint64_t sequence_ = 0;
    bool closed_ = false;
};

class Worker {
public:
    /// Starts the thread and pins it; throws InvalidInput naming the unit and CPU when pinning fails.
    Worker(std::string unit, std::vector<int> cpus, size_t queueCapacity);
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    const std::string& unit() const { return unit_; }
    /// Queues a task (blocks while the queue is full); lower `priority` runs first.
    void post(std::function<void()> task, int64_t priority = 0);
    /// Runs `f` on the worker and waits for its result; its exceptions reach the caller.
    template <class F> auto call(F f) -> decltype(f()) {
        std::packaged_task<decltype(f())()> task(std::move(f));
        auto result = task.get_future();
        post([&task] { task(); }, -1);
        return result.get();
    }

private:
    void loop();
    std::string unit_;
    std::vector<int> cpus_;
    BoundedQueue<std::function<void()>> queue_;
    std::thread thread_;
};

}  // namespace npuwb::partition
