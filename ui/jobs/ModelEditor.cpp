#include "jobs/ModelEditor.h"

#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "npuwb/Optimizer.h"

namespace npuwb::ui {

namespace {

/// One applied pass: redo shows the rewritten model, undo the one before.
class ReplaceModelCommand : public QUndoCommand {
public:
    ReplaceModelCommand(ModelEditor* editor, std::shared_ptr<const LoadedModel> before, PassOutcome after)
        : QUndoCommand(QObject::tr("Apply %1").arg(what(after))), editor_(editor), before_(std::move(before)),
          after_(std::move(after)) {}

    /// "fuse_hardswish" or "fuse_hardswish at 'node'" / "fuse_hardswish at 3 sites".
    static QString what(const PassOutcome& o) {
        if (o.onlyAt.isEmpty()) return o.pass;
        if (o.onlyAt.size() == 1) return QObject::tr("%1 at '%2'").arg(o.pass, o.onlyAt.front());
        return QObject::tr("%1 at %2 sites").arg(o.pass).arg(o.onlyAt.size());
    }

    void redo() override {
        emit editor_->modelReplaced(
            after_.model, QObject::tr("Applied %1: %2 rewrite(s), %3 → %4 nodes; proof max abs diff %5, max rel "
                                      "diff %6")
                              .arg(what(after_))
                              .arg(after_.rewrites)
                              .arg(after_.nodesBefore)
                              .arg(after_.nodesAfter)
                              .arg(after_.maxAbsDiff, 0, 'g', 3)
                              .arg(after_.maxRelDiff, 0, 'g', 3));
    }
    void undo() override {
        emit editor_->modelReplaced(before_, QObject::tr("Undid %1: back to %2 nodes")
                                                 .arg(what(after_))
                                                 .arg(before_->summary.nodeCount));
    }

private:
    ModelEditor* editor_;
    std::shared_ptr<const LoadedModel> before_;
    PassOutcome after_;
};

PassOutcome runPass(const LoadedModel& current, const QString& pass, const QStringList& onlyAt) {
    passes::OptimizerOptions options;
    options.passes = {pass.toStdString()};
    for (const QString& node : onlyAt) options.onlyAt.push_back(node.toStdString());
    const passes::OptimizeResult result = passes::optimize(*current.model, options);
    if (result.applied.empty()) {
        // The optimizer's rollback error already names the pass and the node.
        if (!result.rolledBack.empty())
            throw std::runtime_error("proof failed, model unchanged: " + result.rolledBack.front().error);
        const std::string where =
            onlyAt.isEmpty() ? "" : " at '" + onlyAt.join(QStringLiteral("', '")).toStdString() + "'";
        throw std::runtime_error("pass '" + pass.toStdString() + "' found nothing to rewrite" + where +
                                 "; model unchanged");
    }
    if (!result.endToEnd.passed)
        throw std::runtime_error("pass '" + pass.toStdString() + "': end-to-end proof failed (" +
                                 result.endToEnd.failure + "); model unchanged");
    PassOutcome outcome;
    outcome.pass = pass;
    outcome.onlyAt = onlyAt;
    outcome.rewrites = int(result.applied.size());
    outcome.nodesBefore = result.nodesBefore;
    outcome.nodesAfter = result.nodesAfter;
    outcome.maxAbsDiff = result.endToEnd.maxAbsDiff;
    outcome.maxRelDiff = result.endToEnd.maxRelDiff;
    outcome.model = ModelLoadJob::describe(current.path, std::make_shared<const Model>(result.model));
    return outcome;
}

}  // namespace

ModelEditor::ModelEditor(QObject* parent) : Job(parent), undo_(new QUndoStack(this)) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, &ModelEditor::onFinished);
}

ModelEditor::~ModelEditor() {
    watcher_.waitForFinished();
}

void ModelEditor::applyPass(std::shared_ptr<const LoadedModel> current, const QString& pass,
                            const QStringList& onlyAt) {
    if (isRunning() || !current) return;
    setRunning(true);
    watcher_.setFuture(QtConcurrent::run([current = std::move(current), pass, onlyAt]() {
        Outcome outcome;  // everything is caught here: no exception may cross into Qt's machinery
        outcome.before = current;
        try {
            outcome.result = runPass(*current, pass, onlyAt);
        } catch (const std::exception& e) {
            outcome.error = QString::fromStdString(e.what());
        } catch (...) {
            outcome.error = QStringLiteral("unknown error");
        }
        return outcome;
    }));
}

void ModelEditor::onFinished() {
    setRunning(false);  // before emitting, so handlers may start the next job
    const Outcome outcome = watcher_.result();
    if (outcome.result.model)
        undo_->push(new ReplaceModelCommand(this, outcome.before, outcome.result));  // push() runs redo()
    else
        emit failed(outcome.error);
}

}  // namespace npuwb::ui
