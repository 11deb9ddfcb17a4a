#include "jobs/GraphLayoutJob.h"

#include <QFileInfo>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

namespace npuwb::ui {

GraphLayoutJob::GraphLayoutJob(QObject* parent) : Job(parent) {
    program_ = qEnvironmentVariable("NPUWB_DOT", QStringLiteral("dot"));
    timeout_.setSingleShot(true);
    connect(&timeout_, &QTimer::timeout, this, &GraphLayoutJob::onTimeout);
    connect(&watcher_, &QFutureWatcherBase::finished, this, &GraphLayoutJob::onLayeredFinished);
}

GraphLayoutJob::~GraphLayoutJob() {
    stopChild();
    watcher_.waitForFinished();  // the worker only reads the request it shares
}

void GraphLayoutJob::stopChild() {
    timeout_.stop();
    if (!process_) return;
    process_->disconnect(this);
    if (process_->state() != QProcess::NotRunning) {
        process_->kill();
        process_->waitForFinished(2000);  // reaps the killed child at once, no zombie left behind
    }
    process_->deleteLater();
    process_ = nullptr;
}

void GraphLayoutJob::start(std::shared_ptr<const LayoutRequest> request) {
    stopChild();
    ++attempt_;
    request_ = std::move(request);
    setRunning(true);
    clock_.start();
    if (int(request_->nodes.size()) < largeGraphNodes_) {
        startDot();
        return;
    }
    startLayered({});
}

void GraphLayoutJob::startLayered(const QString& why) {
    watcher_.setFuture(QtConcurrent::run([request = request_, why] {
        LayoutResult result = layeredLayout(*request);
        if (!why.isEmpty()) result.method += QStringLiteral(" (%1)").arg(why);
        return std::make_shared<const LayoutResult>(std::move(result));
    }));
}

void GraphLayoutJob::startDot() {
    const bool isPath = program_.contains(QLatin1Char('/'));
    const QString executable =
        isPath ? (QFileInfo(program_).isExecutable() ? program_ : QString()) : QStandardPaths::findExecutable(program_);
    if (executable.isEmpty()) {
        // Reported from the event loop, like every other ending: callers connect after start() returns.
        const QString message = tr("Graphviz 'dot' not found (looked for '%1'%2): install Graphviz (apt-get install "
                                   "graphviz) or set NPUWB_DOT to its path")
                                    .arg(program_, isPath ? QString() : tr(" on PATH"));
        QMetaObject::invokeMethod(
            this,
            [this, message, attempt = attempt_] {
                if (attempt == attempt_ && isRunning()) fail(message);
            },
            Qt::QueuedConnection);
        return;
    }
    process_ = new QProcess(this);
    connect(process_, &QProcess::finished, this, &GraphLayoutJob::onDotFinished);
    connect(process_, &QProcess::errorOccurred, this, &GraphLayoutJob::onDotError);
    process_->start(executable, {QStringLiteral("-Tplain")});
    process_->write(toDot(*request_));
    process_->closeWriteChannel();
    timeout_.start(timeoutMs_);
}

void GraphLayoutJob::onDotError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart) return;  // crashes arrive through finished
    const QString program = program_;
    stopChild();
    fail(tr("Graphviz 'dot' could not be started ('%1')").arg(program));
}

void GraphLayoutJob::onDotFinished(int exitCode, QProcess::ExitStatus status) {
    timeout_.stop();
    const QByteArray out = process_->readAllStandardOutput();
    const QString err = QString::fromLocal8Bit(process_->readAllStandardError()).trimmed().left(600);
    process_->deleteLater();
    process_ = nullptr;
    if (status != QProcess::NormalExit || exitCode != 0) {
        fail(status == QProcess::NormalExit ? tr("Graphviz dot failed (exit code %1): %2").arg(exitCode).arg(err)
                                            : tr("Graphviz dot crashed: %1").arg(err));
        return;
    }
    std::shared_ptr<const LayoutResult> result;
    const JobFailure failure =
        catchFailure([&] { result = std::make_shared<const LayoutResult>(parsePlain(out, *request_)); });
    if (!failure.error.isEmpty()) {
        fail(tr("Cannot read Graphviz dot's layout: %1").arg(failure.error));
        return;
    }
    setRunning(false);
    emit finished(result, clock_.elapsed());
}

void GraphLayoutJob::onTimeout() {
    const qint64 seconds = (timeoutMs_ + 999) / 1000;
    stopChild();
    if (!fallBack_) {
        fail(tr("Graphviz dot took longer than %1 s on %2 nodes and was stopped")
                 .arg(seconds)
                 .arg(request_->nodes.size()));
        return;
    }
    // A picture now beats none: the cheap layout takes milliseconds where dot gave up.
    startLayered(tr("Graphviz dot took longer than %1 s and was stopped").arg(seconds));
}

void GraphLayoutJob::onLayeredFinished() {
    if (!isRunning() || process_) return;  // cancelled, or a newer dot layout runs
    setRunning(false);
    emit finished(watcher_.result(), clock_.elapsed());
}

void GraphLayoutJob::cancelLayout() {
    if (!isRunning()) return;
    stopChild();
    ++attempt_;
    setRunning(false);
    emit cancelled();
}

void GraphLayoutJob::fail(const QString& message) {
    setRunning(false);
    emit failed(message);
}

}  // namespace npuwb::ui
