#pragma once
// The run toolbar: Run/Cancel actions (added by the window) and the options of a local profiling run.
#include <QToolBar>

#include "npuwb/Profiler.h"

class QSpinBox;

namespace npuwb::ui {

class RunOptionsBar : public QToolBar {
    Q_OBJECT
public:
    static constexpr int kDefaultRuns = 5;
    static constexpr int kDefaultWarmup = 1;

    explicit RunOptionsBar(QWidget* parent = nullptr);

    RunOptions options() const;
    void setRuns(int runs);
    void setWarmup(int warmup);
    QSpinBox* runsBox() const { return runs_; }
    QSpinBox* warmupBox() const { return warmup_; }

signals:
    void optionsChanged();

private:
    QSpinBox* runs_;
    QSpinBox* warmup_;
};

}  // namespace npuwb::ui
