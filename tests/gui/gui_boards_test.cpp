// The Boards side of the GUI, offscreen: the board list model, saved connections without secrets, the host-key
// dialogs, the probe panel and telemetry chart fed by the real agent on a fake RK3588 sysfs tree, and end to end
// against a real OpenSSH server on loopback (tests/remote/TestSshd): Test connection with the fingerprint dialog
// and a passphrase prompt, Deploy, a changed host key refused, and a model run on the "board" through the Run
// action. With NPUWB_SCREENSHOT_DIR set it also saves boards.png and remote-run.png there.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <functional>
#include <memory>
#include <sstream>

#include "TestSshd.h"
#include "core/Workbench.h"
#include "dialogs/BoardQuestionDialogs.h"
#include "dialogs/HostKeyDialog.h"
#include "dialogs/SecretDialog.h"
#include "jobs/BoardJob.h"
#include "jobs/BoardPrompter.h"
#include "jobs/RemoteRunJob.h"
#include "models/BoardListModel.h"
#include "models/LayerTableModel.h"
#include "models/ModelInfoModel.h"
#include "models/ProbeInfoModel.h"
#include "run/RunController.h"
#include "run/RunOptionsBar.h"
#include "run/TelemetryChart.h"
#include "shell/MainWindow.h"
#include "shell/ModelInfoPanel.h"
#include "ssh/ShellQuote.h"
#include "views/boards/BoardsView.h"
#include "views/layers/LayerTableView.h"
#include "views/layers/LayersView.h"

using namespace npuwb::ui;
using npuwb::agentEventFromJson, npuwb::AgentTelemetry;
using npuwb::remote::testing::TestSshd;

namespace {
constexpr int kSshTimeoutMs = 120000;  // generous: two cores shared with parallel ctest jobs

// Runs the real agent locally against the fake board tree; returns its stdout.
QByteArray runAgent(const QString& sysfsRoot, const QStringList& args, const QByteArray& stdinData = {}) {
    QProcess agent;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("NPUWB_SYSFS_ROOT"), sysfsRoot);
    agent.setProcessEnvironment(env);
    agent.start(QStringLiteral(NPUWB_AGENT_BIN), args);
    if (!stdinData.isEmpty()) agent.write(stdinData);
    agent.closeWriteChannel();
    if (!agent.waitForFinished(kSshTimeoutMs) || agent.exitCode() != 0)
        qWarning() << "agent" << args << "failed:" << agent.readAllStandardError();
    return agent.readAllStandardOutput();
}

QString fingerprintOf(const QString& pubFile) {
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"), {QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"),
                                                QStringLiteral("-f"), pubFile});
    keygen.waitForFinished();
    return QString::fromUtf8(keygen.readAllStandardOutput()).split(QLatin1Char(' ')).value(1);
}

void saveScreenshot(QWidget* w, const QString& name) {
    const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QTest::qWait(300);  // let charts replot
    QVERIFY(w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name));
}
}  // namespace

class BoardsTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void boardListModelIsConsistent();
    void settingsRoundTripWithoutSecrets();
    void hostKeyDialogShowsFingerprint();
    void changedKeyWarningCannotAccept();
    void probePanelShowsAgentProbe();
    void telemetryChartPlotsAgentSamples();
    void testConnectionAndDeployOverSsh();
    void runsModelOnBoard();
    void runsCompiledModelOnTheBoardsRuntime();
    void changedHostKeyIsRefused();
    void cancelWhileAskedEndsPromptly();
    void cleanupTestCase();

private:
    BoardEntry sshBoard(const QString& name, const QString& identity, const QString& knownHosts) const;
    /// Answers the questions of `questions` like a user: trust unknown keys, type the test passphrase, remember it.
    void answerPrompts(BoardQuestionDialogs* questions);

    QTemporaryDir scratch_;
    QString fakeBoard_;
    std::unique_ptr<TestSshd> sshd_;
    std::unique_ptr<MainWindow> window_;
    QStringList shownFingerprints_;
    int secretPrompts_ = 0;
    std::function<void(QDialog*)> instead_;  // set: what the "user" does with a prompt instead of answering
};

void BoardsTest::initTestCase() {
    QVERIFY(scratch_.isValid());
    // Settings in a folder of our own: the secret check below reads the real file.
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch_.filePath(QStringLiteral("config")));
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_boards_test"));
    QSettings().clear();

    fakeBoard_ = scratch_.filePath(QStringLiteral("rk3588"));
    QProcess py;
    py.start(QStringLiteral(NPUWB_PYTHON),
             {QStringLiteral("-c"),
              QStringLiteral("import sys; sys.path.insert(0, sys.argv[1]); import fake_board; fake_board.make_rk3588(sys.argv[2])"),
              QStringLiteral(NPUWB_FAKE_BOARD_DIR), fakeBoard_});
    QVERIFY(py.waitForFinished(60000));
    QCOMPARE(py.exitCode(), 0);

    if (QFile::exists(QStringLiteral("/usr/sbin/sshd"))) {
        QVERIFY(QDir().mkpath(scratch_.filePath(QStringLiteral("sshd"))));
        sshd_ = std::make_unique<TestSshd>(scratch_.filePath(QStringLiteral("sshd")).toStdString());
        // The "board" is this machine with the fake RK3588 sysfs tree: the agent there reads NPUWB_SYSFS_ROOT.
        QFile cfg(QString::fromStdString(sshd_->path("sshd_config")));
        QVERIFY(cfg.open(QIODevice::Append));
        // Its NPU runtime is the stand-in librknnrt.so (a real board has librknnrt.so on its library path).
        // (The stand-in reads the container's target chip from the chip profiles, which the bundle does not carry.)
        cfg.write("SetEnv NPUWB_SYSFS_ROOT=" + fakeBoard_.toLocal8Bit() + " NPUWB_RKNNRT_LIBRARY=" NPUWB_STANDIN_RKNNRT
                  " NPUWB_CHIPS_DIR=" NPUWB_CHIPS_DIR "\n");
        cfg.close();
        sshd_->start();
        QFile empty(QString::fromStdString(sshd_->path("empty_ssh_config")));
        QVERIFY(empty.open(QIODevice::WriteOnly));
    }
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
}

void BoardsTest::cleanupTestCase() {
    window_.reset();
    sshd_.reset();
}

BoardEntry BoardsTest::sshBoard(const QString& name, const QString& identity, const QString& knownHosts) const {
    BoardEntry b;
    b.name = name;
    b.connection = {.host = sshd_->user() + "@127.0.0.1:" + std::to_string(sshd_->port()),
                    .identityFiles = {sshd_->path(identity.toStdString())},
                    .knownHostsPath = sshd_->path(knownHosts.toStdString()),
                    .sshConfigPath = sshd_->path("empty_ssh_config"),
                    .timeoutSec = 60,
                    .remoteDir = scratch_.filePath(QStringLiteral("board-cache")).toStdString()};  // no agent yet
    return b;
}

void BoardsTest::answerPrompts(BoardQuestionDialogs* questions) {
    connect(questions, &BoardQuestionDialogs::dialogShown, this, [this](QDialog* dialog) {
        if (instead_) return instead_(dialog);
        if (auto* hostKey = qobject_cast<HostKeyDialog*>(dialog)) {
            shownFingerprints_ << hostKey->fingerprintText();
            hostKey->trustButton()->click();
        } else if (auto* secret = qobject_cast<SecretDialog*>(dialog)) {
            ++secretPrompts_;
            secret->secretEdit()->setText(QString::fromLatin1(TestSshd::kPassphrase));
            secret->rememberBox()->setChecked(secret->rememberBox()->isEnabled());
            secret->accept();
        }
    });
}

void BoardsTest::boardListModelIsConsistent() {
    BoardListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&model, &BoardListModel::boardsChanged);
    BoardEntry a{.name = QStringLiteral("rock5b"), .connection = {.host = "root@10.0.0.5", .timeoutSec = 30}};
    BoardEntry b{.name = QStringLiteral("opi5"),
                 .connection = {.host = "orangepi", .identityFiles = {"/home/u/.ssh/id_opi"}, .timeoutSec = 10}};
    QCOMPARE(model.addBoard(a), 0);
    QCOMPARE(model.addBoard(b), 1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(BoardListModel::ColumnCount));
    QCOMPARE(model.data(model.index(1, BoardListModel::IdentityColumn)).toString(), QStringLiteral("id_opi"));
    QCOMPARE(model.data(model.index(0, BoardListModel::StatusColumn)).toString(), QStringLiteral("not tested"));
    model.setStatus(0, QStringLiteral("aarch64"));
    QCOMPARE(model.status(0), QStringLiteral("aarch64"));
    a.connection.host = "root@10.0.0.6";
    model.updateBoard(0, a);
    QCOMPARE(model.status(0), QString());  // another address: the old finding no longer applies
    QCOMPARE(model.rowOf(QStringLiteral("opi5")), 1);
    model.removeBoard(0);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.board(0).name, QStringLiteral("opi5"));
    model.setBoards({a, b, a});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(changed.count(), 5);
}

void BoardsTest::settingsRoundTripWithoutSecrets() {
    const QString file = scratch_.filePath(QStringLiteral("roundtrip.ini"));
    QList<BoardEntry> boards = {{.name = QStringLiteral("rock5b"),
                                 .connection = {.host = "root@rock5b.local:2222",
                                                .identityFiles = {"/k/id_ed25519"},
                                                .knownHostsPath = "/k/known_hosts",
                                                .sshConfigPath = "/k/config",
                                                .timeoutSec = 45,
                                                .remoteDir = "/tmp/npuwb cache"}},
                                {.name = QStringLiteral("alias"), .connection = {.host = "myboard", .timeoutSec = 5}}};
    {
        QSettings s(file, QSettings::IniFormat);
        saveBoards(s, boards);
    }
    QSettings s(file, QSettings::IniFormat);
    const QList<BoardEntry> loaded = loadBoards(s);
    QCOMPARE(loaded.size(), boards.size());
    QVERIFY(loaded[0] == boards[0]);
    QVERIFY(loaded[1] == boards[1]);
    boards.removeFirst();  // a removed board leaves no row behind
    saveBoards(s, boards);
    QCOMPARE(loadBoards(s).size(), 1);

    QVERIFY(validateBoard(boards[0], {}).isEmpty());
    QVERIFY(validateBoard({.name = QStringLiteral("x"), .connection = {.host = "user@host:notaport"}}, {})
                .contains(QStringLiteral("notaport")));
    QVERIFY(!validateBoard(boards[0], boards).isEmpty());  // duplicate name
}

void BoardsTest::hostKeyDialogShowsFingerprint() {
    npuwb::remote::HostKeyInfo info;
    info.host = "[192.168.1.77]:2222";
    info.keyType = "ssh-ed25519";
    info.fingerprint = "SHA256:n3xv0bq3Xy5Qb1P3m9cXy6kK0m0nQWvO8Ww2uQ4xZ0E";
    info.knownHostsPath = "/home/u/.ssh/known_hosts";
    HostKeyDialog dialog(info);
    QCOMPARE(dialog.fingerprintText(), QString::fromStdString(info.fingerprint));
    QVERIFY(dialog.messageLabel()->text().contains(QStringLiteral("[192.168.1.77]:2222")));
    QVERIFY(dialog.trustButton() != nullptr);
    QVERIFY(!dialog.trustButton()->isDefault());  // Enter rejects
    dialog.open();
    QSignalSpy finished(&dialog, &QDialog::finished);
    QTest::keyClick(&dialog, Qt::Key_Return);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(0).toInt(), int(QDialog::Rejected));
}

void BoardsTest::changedKeyWarningCannotAccept() {
    std::unique_ptr<HostKeyDialog> d(HostKeyDialog::changedKeyWarning(
        QStringLiteral("the host key of [10.0.0.5]:22 has CHANGED (offered ssh-ed25519 SHA256:aaa, known SHA256:bbb)")));
    QVERIFY(d->isWarning());
    QVERIFY(d->trustButton() == nullptr);
    QVERIFY(d->messageLabel()->text().contains(QStringLiteral("SHA256:bbb")));
    for (QPushButton* b : d->findChildren<QPushButton*>()) QVERIFY(!b->text().contains(QStringLiteral("Trust")));
}

void BoardsTest::probePanelShowsAgentProbe() {
    const auto probe = nlohmann::json::parse(runAgent(fakeBoard_, {QStringLiteral("probe")}).toStdString(), nullptr, false);
    QVERIFY(probe.is_object());
    ProbeInfoModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setProbe(probe);
    QCOMPARE(model.value(QStringLiteral("NPU"), QStringLiteral("Driver")),
             QString::fromStdString(probe["npu"]["driver"]["version"].get<std::string>()));
    QCOMPARE(model.value(QStringLiteral("Board"), QStringLiteral("Model")),
             QString::fromStdString(probe["board"].get<std::string>()));
    QCOMPARE(model.value(QStringLiteral("NPU"), QStringLiteral("Frequency")), formatHz(probe["npu"]["freqHz"]));
    QVERIFY(model.value(QStringLiteral("librknnrt"), QStringLiteral("Present")) ==
            (probe["librknnrt"]["present"].get<bool>() ? QStringLiteral("yes") : QStringLiteral("no")));
    // one row per cpufreq policy, with its governor
    QStandardItem* cpu = model.section(QStringLiteral("CPU"));
    QVERIFY(cpu);
    const auto& policies = probe["cpu"]["policies"];
    QCOMPARE(cpu->rowCount(), 2 + int(policies.size()));
    QVERIFY(cpu->child(2, 1)->text().startsWith(QString::fromStdString(policies[0]["governor"].get<std::string>())));
}

void BoardsTest::telemetryChartPlotsAgentSamples() {
    const QString model = QStringLiteral(NPUWB_SAMPLE_MODEL);
    const nlohmann::json job = {{"model", model.toStdString()}, {"backend", "reference"}, {"runs", 3},
                                {"warmup", 1},                  {"telemetryIntervalMs", 20}};
    const QByteArray out = runAgent(fakeBoard_, {QStringLiteral("run"), QStringLiteral("-")}, QByteArray::fromStdString(job.dump()));
    TelemetryChart chart;
    int fed = 0;
    TelemetrySample last;
    std::istringstream lines(out.toStdString());
    for (std::string line; std::getline(lines, line);) {
        const auto event = agentEventFromJson(nlohmann::json::parse(line, nullptr, false));
        const auto* telemetry = event ? std::get_if<AgentTelemetry>(&*event) : nullptr;
        if (!telemetry) continue;
        last = telemetrySampleFrom(*telemetry);
        chart.addSample(last);
        ++fed;
    }
    QVERIFY2(fed >= 2, "the agent samples at start and at the end of a run");
    QCOMPARE(chart.sampleCount(), fed);
    QCOMPARE(chart.npuLoadGraph()->dataCount(), fed);
    QCOMPARE(chart.npuGraph()->dataCount(), fed);
    QCOMPARE(chart.ddrGraph()->dataCount(), fed);
    QVERIFY(last.npuLoadPercent && last.npuMHz && last.cpuMHz);
    QCOMPARE(chart.npuLoadGraph()->data()->at(fed - 1)->value, *last.npuLoadPercent);
    QCOMPARE(chart.npuGraph()->data()->at(fed - 1)->value, *last.npuMHz);
    QVERIFY(chart.plot()->yAxis2->range().upper >= *last.cpuMHz);  // the clocks fit the right axis
}

void BoardsTest::testConnectionAndDeployOverSsh() {
    if (!sshd_) QSKIP("no /usr/sbin/sshd");
    BoardsView* view = window_->view<BoardsView>();
    answerPrompts(view->questions());
    const int row = view->model()->addBoard(sshBoard(QStringLiteral("rock5b-sim"), QStringLiteral("client_key_pw"),
                                                     QStringLiteral("known_hosts")));
    QCOMPARE(window_->runner()->optionsBar()->targetBox()->findText(QStringLiteral("rock5b-sim")), 1);  // the selector follows
    view->selectBoard(row);
    window_->setCurrentView(QStringLiteral("boards"));

    // 1. unknown host (fingerprint dialog), passphrase prompt, no agent yet: the connection works, Deploy is offered
    QSignalSpy done(view, &BoardsView::checkFinished);
    QSignalSpy keychain(view->job()->prompter(), &BoardPrompter::keychainMessage);
    view->testConnection();
    QVERIFY(view->isBusy());
    QVERIFY(done.wait(kSshTimeoutMs));
    QCOMPARE(done.at(0).at(0).toBool(), true);
    QCOMPARE(shownFingerprints_, QStringList{fingerprintOf(QString::fromStdString(sshd_->hostKeyPub()))});
    QCOMPARE(secretPrompts_, 1);
    QVERIFY(view->model()->status(row).contains(QStringLiteral("no agent")));
    auto* offer = view->findChild<QMessageBox*>(QStringLiteral("offerDeployBox"));
    QVERIFY(offer);
    QFile known(QString::fromStdString(sshd_->path("known_hosts")));
    QVERIFY(known.open(QIODevice::ReadOnly));
    QVERIFY(known.readAll().contains(QByteArray::number(sshd_->port())));  // trusted and remembered

    // 2. "Yes" deploys the agent and probes: the fake RK3588 shows up in the panel
    done.clear();
    offer->button(QMessageBox::Yes)->click();
    QVERIFY(done.wait(kSshTimeoutMs));
    QCOMPARE(done.at(0).at(0).toBool(), true);
    QCOMPARE(shownFingerprints_.size(), 1);  // known now: not asked again
    QVERIFY(view->model()->status(row).contains(QStringLiteral("Radxa ROCK 5B")));
    QCOMPARE(view->probeModel()->value(QStringLiteral("NPU"), QStringLiteral("Governor")), QStringLiteral("rknpu_ondemand"));
    QVERIFY(view->statusLabel()->text().contains(QStringLiteral("agent deployed")));

    // the passphrase went (at most) to the keychain, never into the settings file
    if (view->job()->prompter()->keychainEnabled()) QTRY_VERIFY_WITH_TIMEOUT(keychain.count() >= 1, 20000);
    QSettings().sync();
    QFile settings(QSettings().fileName());
    QVERIFY(settings.open(QIODevice::ReadOnly));
    const QByteArray saved = settings.readAll();
    QVERIFY(saved.contains("rock5b-sim"));
    QVERIFY(!saved.contains(TestSshd::kPassphrase));
    QVERIFY(!saved.contains("correct"));
    saveScreenshot(window_.get(), QStringLiteral("boards.png"));
}

void BoardsTest::runsCompiledModelOnTheBoardsRuntime() {
    if (!sshd_) QSKIP("no /usr/sbin/sshd");
    if (QByteArray(NPUWB_STANDIN_RKNNRT).isEmpty()) QSKIP("the rknpu runtime plugin is not built here");
    // The stand-in's test container of the sample model (a real .rknn would come from RKNN-Toolkit2).
    const QString rknn = scratch_.filePath(QStringLiteral("tiny_mobilenet.rknn"));
    QProcess make;
    make.start(QStringLiteral(NPUWB_PYTHON), {QStringLiteral(NPUWB_STANDIN_MAKE_CONTAINER), QStringLiteral(NPUWB_SAMPLE_MODEL),
                                              QStringLiteral("--target"), QStringLiteral("rk3588"), QStringLiteral("-o"), rknn});
    QVERIFY(make.waitForFinished(60000));
    QCOMPARE(make.exitCode(), 0);
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(rknn);
    QVERIFY(loaded.wait(kSshTimeoutMs));
    QCOMPARE(window_->workbench()->loadedModel()->runtime, QStringLiteral("rknpu"));
    ModelInfoModel* info = window_->modelInfo()->infoModel();
    QVERIFY(info->section(QStringLiteral("Inputs")));
    QCOMPARE(info->section(QStringLiteral("Inputs"))->child(0, 0)->text(), QStringLiteral("(not known yet)"));
    RunOptionsBar* bar = window_->runner()->optionsBar();
    QVERIFY(bar->coreMaskBox()->isEnabled());
    QVERIFY(bar->batchBox()->isEnabled());
    QVERIFY(!bar->backendBox()->isEnabled());  // the board's NPU runtime runs it, not a CPU backend
    bar->coreMaskBox()->setCurrentText(QStringLiteral("0_1_2"));
    bar->batchBox()->setValue(2);  // two samples a pass; Contexts left on auto: two, as the vendor derives it
    bar->setRuns(5);
    bar->setWarmup(1);
    QVERIFY(window_->runner()->setRunTarget(QStringLiteral("rock5b-sim")));
    window_->setCurrentView(QStringLiteral("layers"));

    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    QSignalSpy failed(window_->workbench(), &Workbench::operationFailed);
    window_->runner()->startRun();
    QVERIFY(finished.wait(kSshTimeoutMs));
    QCOMPARE(failed.count(), 0);
    const npuwb::Report* report = window_->workbench()->lastReport();
    QVERIFY(report);
    QCOMPARE(report->environment.backend, std::string("rknpu"));
    QCOMPARE(report->run.runs, 5);
    QCOMPARE(report->model.path, rknn.toStdString());
    QVERIFY(report->model.producer.find("stand-in") != std::string::npos);
    QVERIFY(report->layers.size() > 20);  // the runtime's perf-detail rows: the sample model's executed nodes
    // The Batch box reached the board's runtime: two slices a pass over two auto-derived contexts.
    QVERIFY(report->runtime);
    QCOMPARE(report->runtime->batch, int64_t(2));
    QCOMPARE(report->runtime->contexts.size(), size_t(2));
    LayerTableModel* table = window_->view<LayersView>()->tableModel();
    QCOMPARE(table->rowCount(), int(report->layers.size()));
    QVERIFY(table->isTimed());
    // The stand-in has no NPU cycles (a CPU run): the vendor's cycle columns stay hidden rather than show blanks.
    QCOMPARE(window_->view<LayersView>()->tableView()->tableView()->isColumnHidden(LayerTableModel::CyclesColumn),
             !table->hasVendorColumns());
    // inputs and outputs as the board's runtime reported them; memory from its memory query
    QCOMPARE(info->section(QStringLiteral("Inputs"))->child(0, 0)->text(), QStringLiteral("image"));
    QStandardItem* memory = info->section(QStringLiteral("Runtime memory"));
    QVERIFY(memory);
    QCOMPARE(memory->child(0, 0)->text(), QStringLiteral("Weights (shared)"));
    QCOMPARE(memory->child(1, 0)->text(), QStringLiteral("Context 0 internal"));
    QCOMPARE(memory->child(2, 0)->text(), QStringLiteral("Context 1 internal"));
    QVERIFY(memory->child(1, 0)->toolTip().contains(QStringLiteral("0_1_2")));  // the core mask it ran with
    // the telemetry of that very run, from the (fake RK3588) board
    QVERIFY(window_->runner()->telemetryChart()->sampleCount() >= 2);
    QVERIFY(window_->runner()->telemetryChart()->npuLoadGraph()->dataCount() >= 2);
    saveScreenshot(window_.get(), QStringLiteral("remote-rknn-run.png"));

    // Run Locally refuses a compiled model with a message instead of running it on the CPU.
    QVERIFY(window_->runner()->setRunTarget(QStringLiteral("Local")));
    QSignalSpy refused(window_->workbench(), &Workbench::operationFailed);
    window_->runner()->startRun();
    QCOMPARE(refused.count(), 1);
    QVERIFY2(refused.first().first().toString().contains(QStringLiteral("runs on a board")),
             qPrintable(refused.first().first().toString()));
    if (auto* box = window_->findChild<QMessageBox*>(QStringLiteral("errorMessageBox"))) box->accept();
}

void BoardsTest::runsModelOnBoard() {
    if (!sshd_) QSKIP("no /usr/sbin/sshd");
    answerPrompts(window_->runner()->boardQuestions());
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(QStringLiteral(NPUWB_SAMPLE_MODEL));
    QVERIFY(loaded.wait(kSshTimeoutMs));
    QVERIFY(window_->runner()->setRunTarget(QStringLiteral("rock5b-sim")));
    QVERIFY(window_->runner()->runAction()->text().contains(QStringLiteral("rock5b-sim")));
    window_->runner()->optionsBar()->setRuns(20);
    window_->runner()->optionsBar()->setWarmup(2);
    window_->setCurrentView(QStringLiteral("layers"));

    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    QSignalSpy failed(window_->workbench(), &Workbench::operationFailed);
    window_->runner()->startRun();
    QVERIFY(window_->runner()->cancelAction()->isEnabled());
    QVERIFY(!window_->runner()->optionsBar()->targetBox()->isEnabled());
    QVERIFY(finished.wait(kSshTimeoutMs));
    QCOMPARE(failed.count(), 0);
    const npuwb::Report* report = window_->workbench()->lastReport();
    QVERIFY(report);
    QVERIFY(QString::fromStdString(report->environment.device).startsWith(QStringLiteral("board ")));
    QCOMPARE(report->run.runs, 20);
    QCOMPARE(report->model.path, std::string(NPUWB_SAMPLE_MODEL));
    // the same views as a local run
    QVERIFY(window_->view<LayersView>()->tableModel()->isTimed());
    QCOMPARE(window_->view<LayersView>()->tableModel()->rowCount(), int(report->layers.size()));
    QVERIFY(report->layers.size() > 0);
    QStandardItem* lastRun = window_->modelInfo()->infoModel()->section(QStringLiteral("Last run"));
    QVERIFY(lastRun && lastRun->child(0, 0)->text() == QStringLiteral("Device"));
    QCOMPARE(lastRun->child(0, 1)->text(), QString::fromStdString(report->environment.device));
    // live telemetry from the (fake RK3588) board
    QVERIFY(window_->runner()->telemetryChart()->sampleCount() >= 2);
    QVERIFY(window_->runner()->telemetryChart()->npuLoadGraph()->dataCount() >= 2);
    QVERIFY(window_->findChild<QDockWidget*>(QStringLiteral("telemetryDock"))->isVisible());
    saveScreenshot(window_.get(), QStringLiteral("remote-run.png"));

    // a warm second run: same connection, nothing to upload
    finished.clear();
    window_->runner()->startRun();
    QVERIFY(finished.wait(kSshTimeoutMs));
    QCOMPARE(failed.count(), 0);
}

void BoardsTest::changedHostKeyIsRefused() {
    if (!sshd_) QSKIP("no /usr/sbin/sshd");
    // known_hosts says the board has another key: the connection must be refused with the warning dialog
    const QString known = QString::fromStdString(sshd_->path("known_hosts_changed"));
    QFile other(QString::fromStdString(sshd_->path("other_key.pub")));
    QVERIFY(other.open(QIODevice::ReadOnly));
    const QList<QByteArray> parts = other.readAll().split(' ');
    QFile out(known);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write("[127.0.0.1]:" + QByteArray::number(sshd_->port()) + " " + parts[0] + " " + parts[1] + "\n");
    out.close();

    BoardsView* view = window_->view<BoardsView>();
    const int row = view->model()->addBoard(sshBoard(QStringLiteral("impostor"), QStringLiteral("client_key"),
                                                     QStringLiteral("known_hosts_changed")));
    view->selectBoard(row);
    const int asked = shownFingerprints_.size();
    QSignalSpy done(view, &BoardsView::checkFinished);
    view->testConnection();
    QVERIFY(done.wait(kSshTimeoutMs));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QCOMPARE(shownFingerprints_.size(), asked);  // never offered for acceptance
    auto* warning = view->findChild<HostKeyDialog*>(QStringLiteral("hostKeyChangedDialog"));
    QVERIFY(warning);
    QVERIFY(warning->isWarning());
    QVERIFY(warning->trustButton() == nullptr);
    QVERIFY(warning->messageLabel()->text().contains(QStringLiteral("CHANGED")));
    QVERIFY(view->model()->status(row).contains(QStringLiteral("HOST KEY CHANGED")));
    QFile after(known);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll().count('\n'), 1);  // known_hosts untouched
    warning->close();
}

void BoardsTest::cancelWhileAskedEndsPromptly() {
    if (!sshd_) QSKIP("no /usr/sbin/sshd");
    // The worker waits for the host-key answer; Cancel must end that wait (and close the dialog), no hang.
    BoardsView* view = window_->view<BoardsView>();
    const int row = view->model()->addBoard(sshBoard(QStringLiteral("cancelled"), QStringLiteral("client_key"),
                                                     QStringLiteral("known_hosts_cancel")));
    view->selectBoard(row);
    QPointer<QDialog> asked;
    bool wasAsked = false;
    instead_ = [&asked, &wasAsked, view](QDialog* dialog) {
        asked = dialog;
        wasAsked = true;
        view->cancel();
    };
    QSignalSpy done(view, &BoardsView::checkFinished);
    view->testConnection();
    QVERIFY(done.wait(kSshTimeoutMs));
    instead_ = nullptr;
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY(wasAsked);  // it was asked ...
    QTRY_VERIFY(!asked || !asked->isVisible());  // ... and the question went away (closed or deleted) with the cancel
    QVERIFY(view->statusLabel()->text().contains(QStringLiteral("cancelled")));
    QVERIFY(!view->isBusy());
    QVERIFY(!QFile::exists(QString::fromStdString(sshd_->path("known_hosts_cancel"))));  // nothing trusted
}

QTEST_MAIN(BoardsTest)
#include "gui_boards_test.moc"
