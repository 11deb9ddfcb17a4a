#pragma once
// Runs a conversion script written by npuwb/RknnConversion.h with the user's Python, as a child process (QProcess:
// the GUI thread only receives its output lines). probe() asks whether that Python imports rknn.api; run() streams
// the script's "[npuwb] step N/M" lines as progress; cancel() sends SIGINT (the script removes its temporary
// output), then kills it 10 s later.
#include <QProcess>
#include <QString>
#include <QTimer>

#include "jobs/Job.h"

namespace npuwb::ui {

class RknnConvertJob : public Job {
    Q_OBJECT
public:
    explicit RknnConvertJob(QObject* parent = nullptr);
    ~RknnConvertJob() override;

    /// Emits probed(true, version) when `python` imports rknn.api, else probed(false, why).
    void probe(const QString& python);
    /// Runs `python script`; finished(outputPath) when it exits 0 and wrote outputPath, else failed or cancelled.
    void run(const QString& python, const QString& script, const QString& outputPath);
    void cancelRun();

signals:
    void probed(bool available, const QString& detail);
    void progress(int step, int steps, const QString& what);
    void outputLine(const QString& line);
    void finished(const QString& outputPath);
    void failed(const QString& message);
    void cancelled();

private:
    void onReadable();
    void onExited(int exitCode, QProcess::ExitStatus status);

    QProcess* probe_ = nullptr;
    QProcess* process_ = nullptr;
    QTimer killTimer_;
    QString pending_, outputPath_, script_;
    bool cancelling_ = false;
};

}  // namespace npuwb::ui
