#pragma once
// The Run toolbar: the Run/Cancel actions (added by the run controller), the options of a profiling run (runs,
// warm-up, execution backend and threads; for a compiled model the NPU core mask and contexts instead) and where Run
// goes (this computer or a saved board).
#include <QToolBar>

#include "npuwb/RunOptions.h"
#include "npuwb/sdk/ModelRuntime.h"

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
    /// A compiled model's run options: runs and warm-up from the bar, the core mask and contexts of the NPU boxes.
    ModelRunOptions modelRunOptions() const;
    /// A compiled model is open: the NPU boxes apply, backend and threads do not (and the other way round).
    void setCompiledModel(bool compiled);
    /// Disables what must not change while a run is in flight.
    void setRunning(bool running);

    QSpinBox* runsBox() const { return runs_; }
    QSpinBox* warmupBox() const { return warmup_; }
    QComboBox* backendBox() const { return backend_; }
    QSpinBox* threadsBox() const { return threads_; }
    QComboBox* coreMaskBox() const { return coreMask_; }
    QSpinBox* contextsBox() const { return contexts_; }
    /// "Local" first, then the saved boards (filled by the run controller).
    QComboBox* targetBox() const { return target_; }

signals:
    void optionsChanged();

private:
    QSpinBox* runs_;
    QSpinBox* warmup_;
    QComboBox* backend_;
    QSpinBox* threads_;
    QComboBox* coreMask_;
    QSpinBox* contexts_;
    QComboBox* target_;
    bool compiled_ = false;
};

}  // namespace npuwb::ui
