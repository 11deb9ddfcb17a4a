#pragma once
// The Run toolbar: the Run/Cancel actions (added by the run controller), the options of a profiling run (runs,
// warm-up, execution backend and threads; for a compiled model the NPU core mask, contexts and batch instead) and
// where Run goes (this computer or a saved board).
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
    /// A compiled model's run options: runs and warm-up from the bar, the core mask, contexts and batch of the NPU
    /// boxes.
    ModelRunOptions modelRunOptions() const;
    void setCoreMask(NpuCoreMask mask);
    /// 0: auto (derived from the batch); at most min(3, batch), as the runtime refuses more contexts than slices.
    void setContexts(int contexts);
    /// 1..64; lowering it below the contexts lowers the contexts too.
    void setBatch(int batch);
    /// A compiled model is open: the NPU boxes apply and show, backend and threads do not (and the other way round).
    void setCompiledModel(bool compiled);
    /// Disables what must not change while a run is in flight.
    void setRunning(bool running);

    QSpinBox* runsBox() const { return runs_; }
    QSpinBox* warmupBox() const { return warmup_; }
    QComboBox* backendBox() const { return backend_; }
    QSpinBox* threadsBox() const { return threads_; }
    QComboBox* coreMaskBox() const { return coreMask_; }
    QSpinBox* contextsBox() const { return contexts_; }
    QSpinBox* batchBox() const { return batch_; }
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
    QSpinBox* batch_;
    QComboBox* target_;
    QList<QAction*> cpuActions_;  // backend and threads, with their labels: ONNX models
    QList<QAction*> npuActions_;  // core mask, contexts and batch, with their labels: compiled models
    bool compiled_ = false;
};

}  // namespace npuwb::ui
