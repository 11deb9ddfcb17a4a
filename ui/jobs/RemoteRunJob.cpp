#include "jobs/RemoteRunJob.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QTemporaryDir>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "agent-client/AgentClient.h"
#include "jobs/BoardPrompter.h"
#include "npuwb/ModelIO.h"
#include "ssh/SshSession.h"
#include "npuwb/Error.h"

namespace npuwb::ui {

RemoteRunJob::RemoteRunJob(std::shared_ptr<BoardQuestions> questions, QObject* parent)
    : Job(parent), prompter_(new BoardPrompter(std::move(questions), this)) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        setRunning(false);  // before emitting, so handlers may start the next job
        const Outcome outcome = watcher_.result();
        if (outcome.report) emit finished(outcome.report);
        else if (outcome.cancelled) emit cancelled();
        else emit failed(outcome.error, isChangedHostKeyError(outcome.error));
    });
}

RemoteRunJob::~RemoteRunJob() {
    requestCancel();
    watcher_.waitForFinished();
}

void RemoteRunJob::postStage(const QString& text, qint64 done, qint64 total) {
    QMetaObject::invokeMethod(this, [this, text, done, total] { emit stage(text, done, total); }, Qt::QueuedConnection);
}

void RemoteRunJob::start(const RemoteRunRequest& request) {
    if (isRunning()) return;
    setRunning(true);
    watcher_.setFuture(QtConcurrent::run([this, request] { return work(request); }));
}

RemoteRunJob::Outcome RemoteRunJob::work(const RemoteRunRequest& r) {
    Outcome outcome;
    try {
        const BoardLink::Stage showStage = [this](const QString& text, qint64 done, qint64 total) {
            postStage(text, done, total);
        };
        const remote::AgentInstall install = link_.connectWithAgent(r.board, *prompter_, cancelFlag(), showStage);
        const QString board = r.board.name;

        std::string modelFile = r.modelPath.toStdString();
        QTemporaryDir scratch;  // an edited model goes up as the file the passes produced
        if (r.edited) {
            if (!scratch.isValid()) fail(ErrorKind::Io, "cannot create a temporary folder for the edited model");
            modelFile = (scratch.path() + QLatin1Char('/') + QFileInfo(r.modelPath).completeBaseName() +
                         QStringLiteral(".edited.onnx")).toStdString();
            saveModel(*r.edited, modelFile);
        }
        postStage(tr("%1: checking the model …").arg(board), 0, 0);
        const remote::ModelDeploy model =
            link_.deployer().deployModel(modelFile, link_.uploadProgress(tr("the model"), showStage));

        AgentJob job;
        job.model = model.remotePath;
        job.run = r.options;
        job.runtime = r.runtime.toStdString();  // a compiled model: the runtime plugin on the board runs it
        job.modelRun = r.modelRun;
        remote::AgentEvents events;
        events.progress = [this](const AgentProgress& p) {
            const QString phase = QString::fromStdString(p.phase);
            const int done = p.done, total = p.total;
            QMetaObject::invokeMethod(this, [this, phase, done, total] { emit progress(phase, done, total); },
                                      Qt::QueuedConnection);
        };
        events.telemetry = [this](const AgentTelemetry& t) {
            const TelemetrySample sample = telemetrySampleFrom(t);
            QMetaObject::invokeMethod(this, [this, sample] { emit telemetry(sample); }, Qt::QueuedConnection);
        };
        postStage(tr("%1: running …").arg(board), 0, 0);
        remote::AgentClient agent(link_.session(), install);
        Report report = agent.run(job, events);
        report.model.path = r.modelPath.toStdString();
        report.environment.device = "board " + link_.session().describe();
        outcome.report = std::make_shared<const Report>(std::move(report));
    } catch (const Error& e) {
        outcome.cancelled = e.kind() == ErrorKind::Cancelled || cancelRequested();  // e.g. a prompt closed by Cancel
        outcome.error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        outcome.error = QString::fromStdString(e.what());
    }
    if (!outcome.report) link_.reset();  // a failed or cancelled run may have left the connection half-way
    return outcome;
}

}  // namespace npuwb::ui
