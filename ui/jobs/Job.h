#pragma once
// Base of the GUI's worker jobs: heavy work on a pool thread, its result delivered to the GUI thread as signals.
// runningChanged lets the window keep its busy state and actions current without polling every job.
#include <QObject>

namespace npuwb::ui {

class Job : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    /// True from start until the result signal: the worker may be done before its result is delivered.
    bool isRunning() const { return running_; }

signals:
    void runningChanged(bool running);

protected:
    /// Jobs set false before emitting their result, so the result's handlers may start the next job.
    void setRunning(bool running);

private:
    bool running_ = false;
};

}  // namespace npuwb::ui
