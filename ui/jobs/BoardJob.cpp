#include "jobs/BoardJob.h"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

#include "agent-client/AgentClient.h"
#include "deploy/Deployer.h"
#include "jobs/BoardPrompter.h"
#include "models/Format.h"
#include "npuwb/Error.h"

namespace npuwb::ui {

namespace {
QString trimmedLine(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return QString::fromStdString(s);
}
}  // namespace

BoardJob::BoardJob(std::shared_ptr<BoardQuestions> questions, QObject* parent)
    : Job(parent), prompter_(new BoardPrompter(std::move(questions), this)) {
    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        setRunning(false);
        emit finished(std::make_shared<const BoardCheck>(watcher_.result()));
    });
}

BoardJob::~BoardJob() {
    requestCancel();
    watcher_.waitForFinished();  // the prompter (a child) is deleted only after this
}

void BoardJob::testConnection(const BoardEntry& board) { start(board, false); }

void BoardJob::deploy(const BoardEntry& board) { start(board, true); }

void BoardJob::post(const QString& text, qint64 done, qint64 total) {
    QMetaObject::invokeMethod(this, [this, text, done, total] { emit progress(text, done, total); }, Qt::QueuedConnection);
}

void BoardJob::start(const BoardEntry& board, bool deploy) {
    if (isRunning()) return;
    setRunning(true);
    watcher_.setFuture(QtConcurrent::run([this, board, deploy] { return work(board, deploy); }));
}

BoardCheck BoardJob::work(const BoardEntry& board, bool deploy) {
    BoardCheck r;
    r.boardName = board.name;
    QElapsedTimer clock;
    clock.start();
    try {
        post(tr("Connecting to %1 (%2) …").arg(board.name, QString::fromStdString(board.connection.host)), 0, 0);
        auto session = connectBoard(board, *prompter_, cancelFlag());
        r.connectedAs = QString::fromStdString(session->describe());
        remote::Deployer deployer(*session);
        post(tr("Connected as %1; asking the board …").arg(r.connectedAs), 0, 0);
        r.arch = QString::fromStdString(deployer.boardArch());
        r.kernel = trimmedLine(session->execChecked("uname -r"));

        remote::AgentInstall install;
        if (deploy) {
            install = deployer.deployAgent([this](const remote::DeployProgress& p) {
                post(tr("Deploying the agent: %1 %2 / %3")
                         .arg(QString::fromStdString(p.file), formatBytes(p.bytesDone), formatBytes(p.bytesTotal)),
                     p.bytesDone, p.bytesTotal);
            });
            r.filesUploaded = install.filesUploaded;
            r.bytesUploaded = install.bytesUploaded;
        } else {
            // Where deployAgent() puts it (Deployer.h layout); looking must not upload anything.
            install.arch = r.arch.toStdString();
            install.dir = deployer.cacheDir() + "/agent/" + install.arch;
            install.executable = install.dir + "/bin/npuwb-agent";
            install.libDir = install.dir + "/lib";
            install.pluginDir = install.dir + "/lib/plugins";
        }
        remote::AgentClient agent(*session, install);
        try {
            post(tr("Probing %1 …").arg(board.name), 0, 0);
            agent.version();  // checks the protocol before trusting the probe
            r.probe = agent.probe();
            r.agentInstalled = true;
        } catch (const Error& e) {
            if (deploy || e.kind() == ErrorKind::Cancelled) throw;
            r.agentNote = tr("no usable agent on the board yet (%1): press Deploy").arg(QString::fromStdString(e.what()));
        }
    } catch (const Error& e) {
        r.cancelled = e.kind() == ErrorKind::Cancelled || cancelRequested();  // e.g. a prompt closed by Cancel
        r.error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        r.error = QString::fromStdString(e.what());
    }
    r.hostKeyChanged = isChangedHostKeyError(r.error);
    r.seconds = clock.elapsed() / 1000.0;
    return r;
}

}  // namespace npuwb::ui
