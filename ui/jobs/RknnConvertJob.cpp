#include "jobs/RknnConvertJob.h"

#include <signal.h>

#include <QFileInfo>
#include <QRegularExpression>

#include "npuwb/RknnConversion.h"

namespace npuwb::ui {

RknnConvertJob::RknnConvertJob(QObject* parent) : Job(parent) {
    killTimer_.setSingleShot(true);
    killTimer_.setInterval(10000);
    connect(&killTimer_, &QTimer::timeout, this, [this] {
        if (process_) process_->kill();
    });
}

RknnConvertJob::~RknnConvertJob() {
    for (QProcess* p : {probe_, process_})
        if (p && p->state() != QProcess::NotRunning) {
            p->disconnect(this);
            p->kill();
            p->waitForFinished(2000);
        }
}

void RknnConvertJob::probe(const QString& python) {
    if (probe_) {  // a probe of the previous Python still running is dropped
        probe_->disconnect(this);
        probe_->kill();
        probe_->waitForFinished(1000);
        probe_->deleteLater();
    }
    probe_ = new QProcess(this);
    probe_->setProcessChannelMode(QProcess::MergedChannels);
    QProcess* p = probe_;
    connect(p, &QProcess::errorOccurred, this, [this, p, python](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart || p != probe_) return;
        emit probed(false, tr("'%1' was not found").arg(python));
    });
    connect(p, &QProcess::finished, this, [this, p, python](int code, QProcess::ExitStatus status) {
        if (p != probe_) return;
        const QString out = QString::fromUtf8(p->readAll()).trimmed();
        if (status == QProcess::NormalExit && code == 0)
            emit probed(true, out.section(QLatin1Char('\n'), 0, 0));
        else
            emit probed(false, tr("'%1' cannot import rknn.api (RKNN-Toolkit2)").arg(python));
    });
    p->start(python, {QStringLiteral("-c"), QString::fromStdString(rknn::toolkitProbeSource())});
}

void RknnConvertJob::run(const QString& python, const QString& script, const QString& outputPath) {
    if (isRunning()) return;
    if (process_) process_->deleteLater();
    process_ = new QProcess(this);
    process_->setProcessChannelMode(QProcess::MergedChannels);
    outputPath_ = outputPath;
    script_ = script;
    pending_.clear();
    cancelling_ = false;
    connect(process_, &QProcess::readyRead, this, &RknnConvertJob::onReadable);
    connect(process_, &QProcess::finished, this, &RknnConvertJob::onExited);
    connect(process_, &QProcess::errorOccurred, this, [this, python](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart) return;
        setRunning(false);
        emit failed(tr("'%1' could not be started").arg(python));
    });
    setRunning(true);
    process_->start(python, {script});
}

void RknnConvertJob::cancelRun() {
    if (!process_ || process_->state() == QProcess::NotRunning) return;
    cancelling_ = true;
    ::kill(static_cast<pid_t>(process_->processId()), SIGINT);
    killTimer_.start();
}

void RknnConvertJob::onReadable() {
    pending_ += QString::fromUtf8(process_->readAll());
    static const QRegularExpression stepLine(QStringLiteral(R"(^\[npuwb\] step (\d+)/(\d+): (.*)$)"));
    for (qsizetype nl; (nl = pending_.indexOf(QLatin1Char('\n'))) >= 0;) {
        const QString line = pending_.left(nl);
        pending_.remove(0, nl + 1);
        emit outputLine(line);
        const QRegularExpressionMatch m = stepLine.match(line);
        if (m.hasMatch()) emit progress(m.captured(1).toInt(), m.captured(2).toInt(), m.captured(3));
    }
}

void RknnConvertJob::onExited(int exitCode, QProcess::ExitStatus status) {
    onReadable();
    if (!pending_.isEmpty()) emit outputLine(pending_);
    pending_.clear();
    killTimer_.stop();
    setRunning(false);
    if (cancelling_) {
        emit cancelled();
    } else if (status != QProcess::NormalExit || exitCode != 0) {
        emit failed(tr("RKNN-Toolkit2 failed (exit %1) running %2; its output is shown above")
                        .arg(status == QProcess::NormalExit ? exitCode : -1)
                        .arg(script_));
    } else if (!QFileInfo(outputPath_).isFile()) {
        emit failed(tr("%1 finished but wrote no %2").arg(script_, outputPath_));
    } else {
        emit finished(outputPath_);
    }
}

}  // namespace npuwb::ui
