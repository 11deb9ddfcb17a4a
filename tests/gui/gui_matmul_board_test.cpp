// The Matmul view's sweeps on a board, offscreen, against real OpenSSH servers on loopback (tests/remote/TestSshd):
// each "board" is this machine with the stand-in librknnrt.so as its NPU runtime (tests/rknpu/standin; the matmul
// API on the engine's reference, so the figures are a CPU's, and the test checks the plumbing, never the figures).
// A sweep chosen "Run on" a saved board goes through BoardMatmulJob (connect, deploy the agent, a matmul job on the
// rknpu runtime plugin) into the table (under QAbstractItemModelTester: measured on the host, backend rknpu, the core
// mask, predicted over measured) and the chart (a board series beside the CPU one); Cancel kills the agent; a board
// whose runtime is the mini librknnmrt.so (no matmul API) and a chip other than the board's fail with the runtime's
// words. "Run on" and the chip follow the Run and Chip toolbars until the user picks in the form; a sweep longer than
// its time limit is stopped (the agent killed) with a message naming the limit. With NPUWB_SCREENSHOT_DIR set it
// saves mm-board.png, mm-board-error.png, mm-board-follow.png and mm-board-time-limit.png there.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QCheckBox>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <memory>

#include "TestSshd.h"
#include "core/Workbench.h"
#include "dialogs/BoardQuestionDialogs.h"
#include "dialogs/HostKeyDialog.h"
#include "jobs/BoardMatmulJob.h"
#include "models/BoardListModel.h"
#include "models/MatmulBenchModel.h"
#include "run/RunController.h"
#include "shell/MainWindow.h"
#include "views/matmul/MatmulChart.h"
#include "views/matmul/MatmulRunOn.h"
#include "views/matmul/MatmulView.h"

using namespace npuwb::ui;
using npuwb::remote::testing::TestSshd;

namespace {
constexpr int kSshTimeoutMs = 120000;  // generous: two cores shared with parallel ctest jobs

void saveScreenshot(QWidget* w, const QString& name) {
    const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QTest::qWait(300);  // let the chart replot
    QVERIFY(w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name));
}

// Agent processes started from this test's board cache (the remote folder is ours alone).
int agentsRunningFrom(const QString& cacheDir) {
    QProcess pgrep;
    pgrep.start(QStringLiteral("pgrep"), {QStringLiteral("-f"), cacheDir + QStringLiteral("/.*npuwb-agent")});
    pgrep.waitForFinished();
    return int(pgrep.readAllStandardOutput().count('\n'));
}
}  // namespace

class MatmulBoardTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void runOnFollowsTheToolbars();
    void boardSweepFillsTableAndChart();
    void cancelKillsTheAgent();
    void timeLimitStopsTheSweep();
    void runtimeWithoutMatmulApiIsNamed();
    void chipOtherThanTheBoardsIsNamed();
    void runOnIsRemembered();
    void cleanupTestCase();

private:
    /// A "board" whose NPU runtime is `library` (the stand-in) for `chip`, saved under `name`.
    void addBoard(const QString& name, const char* library, const char* chip);
    /// Starts the view's sweep and waits for its end; the message of a failure (empty: it finished).
    QString runSweep();

    QTemporaryDir scratch_;
    std::vector<std::unique_ptr<TestSshd>> sshds_;
    std::unique_ptr<MainWindow> window_;
    MatmulView* view_ = nullptr;
    std::unique_ptr<QAbstractItemModelTester> tester_;
    QString cacheDir_;
};

void MatmulBoardTest::initTestCase() {
    if (!QFile::exists(QStringLiteral("/usr/sbin/sshd"))) QSKIP("no /usr/sbin/sshd");
    QVERIFY(scratch_.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch_.filePath(QStringLiteral("config")));
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_matmul_board_test"));
    QSettings().clear();
    cacheDir_ = scratch_.filePath(QStringLiteral("board-cache"));
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(window_->setCurrentView(QStringLiteral("matmul")));
    view_ = window_->view<MatmulView>();
    QVERIFY(view_);
    tester_ = std::make_unique<QAbstractItemModelTester>(view_->model(),
                                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    // The user trusts each loopback server's key once (the client key has no passphrase).
    connect(view_->boardQuestions(), &BoardQuestionDialogs::dialogShown, this, [](QDialog* dialog) {
        if (auto* hostKey = qobject_cast<HostKeyDialog*>(dialog)) hostKey->trustButton()->click();
    });
    addBoard(QStringLiteral("rk3588-sim"), NPUWB_STANDIN_RKNNRT, "rk3588");
    addBoard(QStringLiteral("mini-sim"), NPUWB_STANDIN_RKNNMRT, "rv1106");
}

void MatmulBoardTest::addBoard(const QString& name, const char* library, const char* chip) {
    const QString folder = scratch_.filePath(name);
    QVERIFY(QDir().mkpath(folder));
    auto sshd = std::make_unique<TestSshd>(folder.toStdString());
    QFile cfg(QString::fromStdString(sshd->path("sshd_config")));
    QVERIFY(cfg.open(QIODevice::Append));
    // As a real board has librknnrt.so on its library path (the stand-in reads its chip's profile from the tree).
    cfg.write(QByteArray("SetEnv NPUWB_RKNNRT_LIBRARY=") + library + " NPUWB_STANDIN_CHIP=" + chip +
              " NPUWB_CHIPS_DIR=" NPUWB_CHIPS_DIR "\n");
    cfg.close();
    sshd->start();
    QFile empty(QString::fromStdString(sshd->path("empty_ssh_config")));
    QVERIFY(empty.open(QIODevice::WriteOnly));
    BoardEntry board;
    board.name = name;
    board.connection = {.host = sshd->user() + "@127.0.0.1:" + std::to_string(sshd->port()),
                        .identityFiles = {sshd->path("client_key")},
                        .knownHostsPath = scratch_.filePath(QStringLiteral("known_hosts")).toStdString(),
                        .sshConfigPath = sshd->path("empty_ssh_config"),
                        .timeoutSec = 60,
                        .remoteDir = cacheDir_.toStdString()};  // one cache: the agent goes up once
    window_->workbench()->boards()->addBoard(board);
    sshds_.push_back(std::move(sshd));
}

QString MatmulBoardTest::runSweep() {
    QSignalSpy shown(view_, &WorkbenchView::resultShown);
    QSignalSpy failed(window_->workbench(), &Workbench::operationFailed);
    QSignalSpy cancelled(view_->boardJob(), &BoardMatmulJob::cancelled);
    view_->startBench();
    if (!view_->isRunning()) return QStringLiteral("did not start");
    if (!QTest::qWaitFor([this] { return !view_->isRunning(); }, kSshTimeoutMs)) return QStringLiteral("timed out");
    if (auto* box = window_->findChild<QMessageBox*>(QStringLiteral("errorMessageBox"))) box->deleteLater();
    if (!failed.isEmpty()) return failed.first().first().toString();
    return shown.isEmpty() ? QStringLiteral("neither shown nor failed") : QString();
}

void MatmulBoardTest::runOnFollowsTheToolbars() {
    MatmulRunOn* runOn = view_->runOn();
    QVERIFY(runOn->follows());  // the default
    RunController* runner = window_->runner();
    QVERIFY(runner->setRunTarget(QStringLiteral("rk3588-sim")));
    QCOMPARE(window_->workbench()->runBoard(), QStringLiteral("rk3588-sim"));
    QVERIFY(runOn->board());
    QCOMPARE(runOn->board()->name, QStringLiteral("rk3588-sim"));
    QVERIFY(runner->setRunTarget(QString()));  // Local
    QVERIFY(!runOn->board());
    // The chip follows the Chip toolbar.
    TargetOptions target = window_->workbench()->target();
    target.chip = QStringLiteral("rk3566");
    QVERIFY(window_->workbench()->setTarget(target));
    QCOMPARE(view_->chipBox()->currentData().toString(), QStringLiteral("rk3566"));
    QVERIFY(runner->setRunTarget(QStringLiteral("rk3588-sim")));
    saveScreenshot(window_.get(), QStringLiteral("mm-board-follow.png"));
    target.chip = QStringLiteral("rk3588");
    QVERIFY(window_->workbench()->setTarget(target));
    QCOMPARE(view_->chipBox()->currentData().toString(), QStringLiteral("rk3588"));

    // The user's own pick in the form wins, and the toolbar no longer moves it.
    runOn->targetBox()->setFocus();
    QTest::keyClick(runOn->targetBox(), Qt::Key_Down);  // rk3588-sim -> mini-sim, as a user does
    QCOMPARE(runOn->board()->name, QStringLiteral("mini-sim"));
    QVERIFY(!runOn->follows());
    QVERIFY(runner->setRunTarget(QString()));
    QCOMPARE(runOn->board()->name, QStringLiteral("mini-sim"));
    // Ticking "As the toolbars" again takes the toolbar's target at once.
    runOn->followBox()->setChecked(true);
    QVERIFY(!runOn->board());
    QVERIFY(runner->setRunTarget(QStringLiteral("rk3588-sim")));
    QCOMPARE(runOn->board()->name, QStringLiteral("rk3588-sim"));
    // Remembered: off after a pick, and the pick itself.
    QSettings settings;
    settings.beginGroup(QStringLiteral("matmulFollow"));
    QVERIFY(view_->setRunOn(QStringLiteral("mini-sim")));  // an explicit choice turns following off
    view_->saveSettings(settings);
    runOn->followBox()->setChecked(true);
    view_->restoreSettings(settings);
    QVERIFY(!runOn->follows());
    QCOMPARE(runOn->board()->name, QStringLiteral("mini-sim"));
    QVERIFY(runner->setRunTarget(QString()));
}

void MatmulBoardTest::boardSweepFillsTableAndChart() {
    // The chart's CPU series of the sweep first, then the same sweep on the board's NPU beside it.
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("1,16,64"), QStringLiteral("256"), QStringLiteral("128")));
    QVERIFY(view_->setRunOn(QStringLiteral("CPU")));
    QVERIFY(!view_->runOn()->coreMaskBox()->isEnabled());  // the CPU has no NPU cores
    QCOMPARE(runSweep(), QString());
    QVERIFY(!view_->model()->measuredOnBoard());

    QVERIFY(view_->setRunOn(QStringLiteral("rk3588-sim"), QStringLiteral("0_1")));
    QVERIFY(view_->runOn()->coreMaskBox()->isEnabled());
    QSignalSpy stages(view_->boardJob(), &BoardMatmulJob::stage);
    QCOMPARE(runSweep(), QString());
    QVERIFY(!stages.isEmpty());
    QVERIFY(stages.first().first().toString().startsWith(QStringLiteral("Connecting to rk3588-sim")));

    const npuwb::MatmulBenchResult* result = view_->model()->result();
    QVERIFY(result);
    const std::string host = window_->workbench()->boards()->board(0).connection.host;
    QCOMPARE(result->measuredOn, host);
    QCOMPARE(result->chip, std::string("RK3588"));
    QCOMPARE(result->npuCores, int64_t(2));  // the estimate and the peak count the mask's cores
    MatmulBenchModel* model = view_->model();
    QVERIFY(model->measuredOnBoard());
    QCOMPARE(model->rowCount(), 3);
    for (int row = 0; row < 3; ++row) {
        auto value = [&](int column) { return model->index(row, column).data(MatmulBenchModel::ValueRole); };
        QCOMPARE(value(MatmulBenchModel::BackendColumn).toString(), QStringLiteral("rknpu"));
        QCOMPARE(value(MatmulBenchModel::MeasuredOnColumn).toString(), QString::fromStdString(host));
        QCOMPARE(value(MatmulBenchModel::CoreMaskColumn).toString(), QStringLiteral("0_1"));
        QVERIFY(value(MatmulBenchModel::CpuTimeColumn).toDouble() > 0);
        const double ratio = value(MatmulBenchModel::PredictedOverMeasuredColumn).toDouble();
        QVERIFY(ratio > 0);
        const double measuredUs = value(MatmulBenchModel::CpuTimeColumn).toDouble();
        QCOMPARE(ratio, value(MatmulBenchModel::NpuTimeColumn).toDouble() / measuredUs);
    }
    QCOMPARE(model->headerData(MatmulBenchModel::CpuTimeColumn, Qt::Horizontal).toString(), QStringLiteral("NPU time"));
    // Board and CPU series side by side; the legend names the host.
    QCOMPARE(view_->chart()->seriesCount(), 2);
    QCPGraph* board = view_->chart()->measuredGraph(*result);
    QVERIFY(board);
    QCOMPARE(board->dataCount(), 3);
    QVERIFY(board->name().contains(QString::fromStdString(host)));
    QVERIFY(view_->summaryLabel()->text().contains(QString::fromStdString(host).toHtmlEscaped()));
    saveScreenshot(window_.get(), QStringLiteral("mm-board.png"));
}

void MatmulBoardTest::cancelKillsTheAgent() {
    // Minutes of the stand-in's reference kernels (int8, up to 512 x 8192 x 4096), cancelled while the agent runs.
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("256,512"), QStringLiteral("8192"), QStringLiteral("4096")));
    QVERIFY(view_->setRunOn(QStringLiteral("rk3588-sim")));
    const int rowsBefore = view_->model()->rowCount();
    QSignalSpy stages(view_->boardJob(), &BoardMatmulJob::stage);
    QSignalSpy cancelled(view_->boardJob(), &BoardMatmulJob::cancelled);
    QSignalSpy finished(view_->boardJob(), &BoardMatmulJob::finished);
    view_->startBench();
    QVERIFY(view_->isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!stages.isEmpty() && stages.last().first().toString().contains(QStringLiteral("running")),
                             kSshTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(agentsRunningFrom(cacheDir_) > 0, 30000);  // the agent is at work on the "board"
    view_->cancelBench();
    QVERIFY(cancelled.wait(30000));
    QCOMPARE(finished.count(), 0);
    QCOMPARE(view_->model()->rowCount(), rowsBefore);  // the last finished sweep stays shown
    QVERIFY(view_->runButton()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(agentsRunningFrom(cacheDir_), 0, 30000);  // killed, not left running
}

void MatmulBoardTest::timeLimitStopsTheSweep() {
    // The same minutes-long sweep under the shortest limit the form offers: stopped, said, the agent gone.
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("256,512"), QStringLiteral("8192"), QStringLiteral("4096")));
    QVERIFY(view_->setRunOn(QStringLiteral("rk3588-sim")));
    QSpinBox* limit = view_->runOn()->timeLimitBox();
    QVERIFY(limit->isEnabled());
    limit->setValue(limit->minimum());
    QCOMPARE(view_->runOn()->timeLimitSeconds(), 10);
    const int rowsBefore = view_->model()->rowCount();
    QSignalSpy cancelled(view_->boardJob(), &BoardMatmulJob::cancelled);
    QElapsedTimer clock;
    clock.start();
    const QString message = runSweep();
    qInfo("stopped after %lld ms: %s", clock.elapsed(), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("did not finish within its time limit of 10 s")), qPrintable(message));
    QVERIFY(clock.elapsed() >= 10000);
    QCOMPARE(cancelled.count(), 0);  // a failure that names the limit, not a cancel
    QVERIFY(view_->summaryLabel()->text().contains(QStringLiteral("time limit of 10 s")));
    QCOMPARE(view_->model()->rowCount(), rowsBefore);
    QVERIFY(view_->runButton()->isEnabled());
    saveScreenshot(window_.get(), QStringLiteral("mm-board-time-limit.png"));
    QTRY_COMPARE_WITH_TIMEOUT(agentsRunningFrom(cacheDir_), 0, 30000);
    limit->setValue(600);
}

void MatmulBoardTest::runtimeWithoutMatmulApiIsNamed() {
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("1"), QStringLiteral("64"), QStringLiteral("32")));
    QVERIFY(view_->setRunOn(QStringLiteral("mini-sim")));
    const int rowsBefore = view_->model()->rowCount();
    const QString message = runSweep();
    QVERIFY2(message.contains(QStringLiteral("librknnmrt.so' has no matmul API: it lacks rknn_matmul_create")),
             qPrintable(message));
    QVERIFY(view_->summaryLabel()->text().contains(QStringLiteral("has no matmul API")));
    saveScreenshot(window_.get(), QStringLiteral("mm-board-error.png"));
    QCOMPARE(view_->model()->rowCount(), rowsBefore);
    QVERIFY(view_->runButton()->isEnabled());
}

void MatmulBoardTest::chipOtherThanTheBoardsIsNamed() {
    // The RK3566's layouts asked of an RK3588's runtime: refused before any run.
    QVERIFY(view_->setForm(QStringLiteral("rk3566"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("1"), QStringLiteral("64"), QStringLiteral("32")));
    QVERIFY(view_->setRunOn(QStringLiteral("rk3588-sim")));
    const QString message = runSweep();
    QVERIFY2(message.contains(QStringLiteral("is the board that chip?")), qPrintable(message));
}

void MatmulBoardTest::runOnIsRemembered() {
    QVERIFY(view_->setRunOn(QStringLiteral("rk3588-sim"), QStringLiteral("0_1_2")));
    QSettings settings;
    settings.beginGroup(QStringLiteral("matmulRemembered"));
    view_->saveSettings(settings);
    QVERIFY(view_->setRunOn(QStringLiteral("CPU"), QStringLiteral("auto")));
    QVERIFY(!view_->runOn()->board());
    view_->restoreSettings(settings);
    QCOMPARE(view_->runOn()->board()->name, QStringLiteral("rk3588-sim"));
    QCOMPARE(view_->runOn()->coreMask(), npuwb::NpuCoreMask::Cores012);
    // A board removed from the list leaves "Run on" at the CPU rather than at another board.
    QVERIFY(!view_->setRunOn(QStringLiteral("no-such-board")));
    window_->workbench()->boards()->removeBoard(0);
    QVERIFY(!view_->runOn()->board());
}

void MatmulBoardTest::cleanupTestCase() {
    tester_.reset();
    window_.reset();
    sshds_.clear();
}

QTEST_MAIN(MatmulBoardTest)
#include "gui_matmul_board_test.moc"
