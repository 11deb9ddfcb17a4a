#pragma once
// The Run toolbar: the Run/Cancel actions (added by the run controller), the options of a profiling run (runs,
// warm-up, execution backend and threads) and where Run goes (this computer or a saved board).
#include <QToolBar>

#include "npuwb/RunOptions.h"

class QComboBox;
class QSpinBox;

namespace npuwb::ui {

class RunOptionsBar : public QToolBar {
    Q_OBJECT
public:
    explicit RunOptionsBar(QWidget* parent = nullptr);

    /// Runs, warm-up, backend ("auto", "reference" or a plugin name) and threads (0: physical cores); the rest of
    /// RunOptions keeps its defaults, which are also the bar's until the user changes them.
    RunOptions options() const;
    void setRuns(int runs);
    void setWarmup(int warmup);
    /// A backend that is not there (a plugin removed since the setting was saved) falls back to "auto".
    void setBackend(const QString& name);
    void setThreads(int threads);
    /// Disables what must not change while a run is in flight.
    void setRunning(bool running);

    QSpinBox* runsBox() const { return runs_; }
    QSpinBox* warmupBox() const { return warmup_; }
    QComboBox* backendBox() const { return backend_; }
    QSpinBox* threadsBox() const { return threads_; }
    /// "Local" first, then the saved boards (filled by the run controller).
    QComboBox* targetBox() const { return target_; }

signals:
    void optionsChanged();

private:
    QSpinBox* runs_;
    QSpinBox* warmup_;
    QComboBox* backend_;
    QSpinBox* threads_;
    QComboBox* target_;
};

}  // namespace npuwb::ui
