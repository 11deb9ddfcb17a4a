#pragma once
// Applies a finding's fixing pass to the open model on a worker thread, with the optimizer's numerical proof, at
// every site or only at the chosen ones (OptimizerOptions::onlyAt: the sites' anchor nodes), and keeps every
// applied rewrite on an undo stack (Edit > Undo/Redo restore the model before/after). A rewrite the
// proof rejects leaves the model unchanged and reports the error naming the pass and node.
#include <QFutureWatcher>
#include <QString>
#include <QStringList>

#include <memory>

#include "jobs/Job.h"
#include "jobs/ModelLoadJob.h"

class QUndoStack;

namespace npuwb::ui {

/// How an applied pass changed the model, for the status bar.
struct PassOutcome {
    std::shared_ptr<const LoadedModel> model;
    QString pass;
    QStringList onlyAt;  // the chosen sites' anchor nodes; empty: every site
    int rewrites = 0;
    size_t nodesBefore = 0;
    size_t nodesAfter = 0;
    double maxAbsDiff = 0;
    double maxRelDiff = 0;
};

class ModelEditor : public Job {
    Q_OBJECT
public:
    explicit ModelEditor(QObject* parent = nullptr);
    /// Waits for the worker: it must not outlive the object it reports to.
    ~ModelEditor() override;

    QUndoStack* undoStack() const { return undo_; }
    /// Runs `pass` to a fixed point on `current` (only at the matches anchored at `onlyAt` when given) and proves
    /// it; ignored while another pass runs.
    void applyPass(std::shared_ptr<const LoadedModel> current, const QString& pass, const QStringList& onlyAt = {});

signals:
    /// The model to show: after an applied pass, an undo or a redo. `statusText` says what happened.
    void modelReplaced(std::shared_ptr<const LoadedModel> model, const QString& statusText);
    void failed(const QString& message);

private:
    struct Outcome {
        std::shared_ptr<const LoadedModel> before;
        PassOutcome result;
        QString error;
    };
    void onFinished();

    QUndoStack* undo_;
    QFutureWatcher<Outcome> watcher_;
};

}  // namespace npuwb::ui
