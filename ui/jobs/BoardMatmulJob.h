#pragma once
// A matmul benchmark sweep on a saved board's NPU, on a worker thread: connect and deploy the agent (BoardLink,
// shared with RemoteRunJob), send the sweep as a matmul job for the board's rknpu runtime plugin, and hand back the
// board's MatmulBenchResult (measuredOn = the board's host). Live: connection stages and progress per point. The
// connection is kept for the next sweep on the same board. Cancel ends the wait at once and kills the agent; so does
// the time limit (connect, deploy and sweep together), which then fails with a message saying so.
#include <QFutureWatcher>
#include <QString>
#include <QTimer>

#include <memory>

#include "jobs/BoardLink.h"
#include "jobs/Job.h"
#include "models/BoardSettings.h"
#include "npuwb/MatmulBench.h"

namespace npuwb::ui {

class BoardPrompter;
class BoardQuestions;

class BoardMatmulJob : public Job {
    Q_OBJECT
public:
    /// Connection questions (host key, secrets) go to `questions`.
    BoardMatmulJob(std::shared_ptr<BoardQuestions> questions, QObject* parent = nullptr);
    /// Cancels and waits: the worker must not outlive what it reports to.
    ~BoardMatmulJob() override;
    /// Ignored while a sweep is in flight. The chip is looked up by name on the worker; its profile travels with
    /// the job (boards carry none). `timeLimitSeconds` > 0 bounds the whole job (the agent is told too).
    void start(const BoardEntry& board, const QString& chip, const MatmulBenchOptions& options,
               int timeLimitSeconds = 0);
    BoardPrompter* prompter() const { return prompter_; }

signals:
    /// Connecting, deploying, running: text for the status bar; total 0 = no measurable progress.
    void stage(const QString& text, qint64 done, qint64 total);
    void progress(int done, int total);
    void finished(std::shared_ptr<const MatmulBenchResult> result);
    void cancelled();
    /// hostKeyChanged: the board's host key differs from known_hosts (show the warning, not a plain error).
    void failed(const QString& message, bool hostKeyChanged);

private:
    struct Outcome {
        std::shared_ptr<const MatmulBenchResult> result;
        bool cancelled = false;
        QString error;
    };
    Outcome work(const BoardEntry& board, const std::string& chip, const MatmulBenchOptions& options,
                 int timeLimitSeconds);

    BoardPrompter* prompter_;
    QTimer limit_;            // the time limit, on the GUI thread: cancels the worker when it fires
    bool timedOut_ = false;   // the limit fired: the cancel is reported as a failure naming it
    int limitSeconds_ = 0;
    QString boardName_;
    QFutureWatcher<Outcome> watcher_;
    BoardLink link_;
};

}  // namespace npuwb::ui
