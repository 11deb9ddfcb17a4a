#pragma once
// Base of the GUI's worker jobs: heavy work on a pool thread, its result delivered to the GUI thread as signals.
// runningChanged lets the window keep its busy state and actions current without polling every job; cancel() sets
// the flag the worker (and the engine, through it) checks; catchFailure keeps every exception on the worker's side.
#include <QObject>
#include <QString>

#include <atomic>
#include <exception>

#include "npuwb/Error.h"

namespace npuwb::ui {

/// How a worker's body ended when it did not deliver: cancelled, or failed with a message (both empty: it delivered).
struct JobFailure {
    bool cancelled = false;
    QString error;
};

/// Runs a worker's body, turning any exception into a JobFailure: none may cross into Qt's machinery. An npuwb
/// error of kind Cancelled counts as cancelled.
template <class Body> JobFailure catchFailure(Body&& body) {
    try {
        body();
        return {};
    } catch (const Error& e) {
        return {e.kind() == ErrorKind::Cancelled, QString::fromStdString(e.what())};
    } catch (const std::exception& e) {
        return {false, QString::fromStdString(e.what())};
    } catch (...) {
        return {false, QStringLiteral("unknown error")};
    }
}

class Job : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    /// True from start until the result signal: the worker may be done before its result is delivered.
    bool isRunning() const { return running_; }

public slots:
    /// Asks the running worker to stop; it ends with its cancelled signal. Ignored when nothing runs.
    void cancel() {
        if (running_) cancel_ = true;
    }

signals:
    void runningChanged(bool running);

protected:
    /// Jobs set true on start (which also clears a cancel left from before) and false before emitting their
    /// result, so the result's handlers may start the next job.
    void setRunning(bool running);
    /// For destructors: cancel whether or not a result is still to be delivered, then wait for the worker.
    void requestCancel() { cancel_ = true; }
    bool cancelRequested() const { return cancel_.load(); }
    /// The flag itself, for engine APIs that take a pointer to poll.
    std::atomic<bool>* cancelFlag() { return &cancel_; }

private:
    bool running_ = false;
    std::atomic<bool> cancel_{false};
};

}  // namespace npuwb::ui
