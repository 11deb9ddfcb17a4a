#pragma once
// Lays a graph out for the Graph view: Graphviz `dot -Tplain` as a child process (QProcess, so the GUI thread only
// hears about it; a separate process also keeps Graphviz's EPL code out of this program), with a timeout (after
// which the in-process layered layout draws it instead), and Cancel kills the child. Graphs past kLargeGraphNodes get
// the layered layout on a worker from the start.
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QProcess>
#include <QString>
#include <QTimer>

#include <memory>

#include "jobs/Job.h"
#include "models/GraphLayout.h"

namespace npuwb::ui {

class GraphLayoutJob : public Job {
    Q_OBJECT
public:
    explicit GraphLayoutJob(QObject* parent = nullptr);
    ~GraphLayoutJob() override;

    /// The dot program: a path or a name on PATH. Default: $NPUWB_DOT, else "dot".
    void setProgram(const QString& program) { program_ = program; }
    QString program() const { return program_; }
    void setTimeoutMs(int ms) { timeoutMs_ = ms; }
    /// On a timeout, lay out in-process instead of failing (the default).
    void setFallBackOnTimeout(bool fallBack) { fallBack_ = fallBack; }
    int timeoutMs() const { return timeoutMs_; }
    /// Node count from which the in-process layout replaces dot.
    void setLargeGraphNodes(int nodes) { largeGraphNodes_ = nodes; }
    int largeGraphNodes() const { return largeGraphNodes_; }

    /// Starts a layout; one still running is dropped (its child killed).
    void start(std::shared_ptr<const LayoutRequest> request);
    /// Kills dot (or drops the worker's result); cancelled follows.
    void cancelLayout();

signals:
    void finished(std::shared_ptr<const LayoutResult> result, qint64 elapsedMs);
    void failed(const QString& message);
    void cancelled();

private:
    void startDot();
    void onDotFinished(int exitCode, QProcess::ExitStatus status);
    void onDotError(QProcess::ProcessError error);
    void onTimeout();
    void startLayered(const QString& why);
    void onLayeredFinished();
    void stopChild();
    void fail(const QString& message);

    QString program_;
    int timeoutMs_ = 60000;
    bool fallBack_ = true;
    int largeGraphNodes_ = kLargeGraphNodes;
    std::shared_ptr<const LayoutRequest> request_;
    QProcess* process_ = nullptr;
    QTimer timeout_;
    QElapsedTimer clock_;
    QFutureWatcher<std::shared_ptr<const LayoutResult>> watcher_;
    int attempt_ = 0;  // a failure queued for an older start() is dropped
};

}  // namespace npuwb::ui
