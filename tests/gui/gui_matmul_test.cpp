// The Matmul view on the real main window, offscreen: the form's problems as the engine words them (a misaligned N,
// an over-long K) with Run disabled, a small sweep run on a worker into the table (under QAbstractItemModelTester)
// and the chart (one series per type and layout), and Cancel stopping a long sweep.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

#include "core/Workbench.h"
#include "jobs/MatmulBenchJob.h"
#include "models/MatmulBenchModel.h"
#include "shell/MainWindow.h"
#include "views/matmul/MatmulChart.h"
#include "views/matmul/MatmulView.h"

using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 120000;
}

class MatmulViewTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void isARegisteredTab();
    void misalignedNIsNamedAndBlocksRun();
    void overLongKIsNamed();
    void sweepFillsTableAndChart();
    void cancelStopsALongSweep();
    void cleanupTestCase();

private:
    std::unique_ptr<MainWindow> window_;
    MatmulView* view_ = nullptr;
};

void MatmulViewTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_matmul_test"));
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    view_ = window_->view<MatmulView>();
    QVERIFY(view_);
}

void MatmulViewTest::isARegisteredTab() {
    QVERIFY(window_->setCurrentView(QStringLiteral("matmul")));
    auto* tabs = window_->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    QCOMPARE(tabs->currentWidget(), view_);
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("&Matmul"));
}

void MatmulViewTest::misalignedNIsNamedAndBlocksRun() {
    QVERIFY(view_->layoutsLabel()->text().contains(QStringLiteral("RK3588")));  // the target toolbar's chip
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("1"), QStringLiteral("64"), QStringLiteral("100")));
    QVERIFY2(view_->problems().contains(QStringLiteral("N=100 must be a multiple of 32 for int8 on RK3588")),
             qPrintable(view_->problems().join(QLatin1Char('|'))));
    QVERIFY(view_->problemsLabel()->text().contains(QStringLiteral("N=100 must be a multiple of 32")));
    QVERIFY(!view_->runButton()->isEnabled());
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("1"), QStringLiteral("64"), QStringLiteral("96")));
    QVERIFY2(view_->problems().isEmpty(), qPrintable(view_->problems().join(QLatin1Char('|'))));
    QVERIFY(view_->runButton()->isEnabled());
    QVERIFY(view_->layoutsLabel()->text().contains(QStringLiteral("[N/32,K/32,32,32]")));
}

void MatmulViewTest::overLongKIsNamed() {
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("1"), QStringLiteral("12000"), QStringLiteral("64")));
    QVERIFY2(view_->problems().contains(QStringLiteral("K=12000 exceeds 10240, the largest K of the matmul API on RK3588")),
             qPrintable(view_->problems().join(QLatin1Char('|'))));
    QVERIFY(!view_->runButton()->isEnabled());
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("1,x"), QStringLiteral("64"), QStringLiteral("64")));
    QVERIFY(view_->problems().contains(QStringLiteral("M: 'x' is not a positive whole number")));
}

void MatmulViewTest::sweepFillsTableAndChart() {
    QAbstractItemModelTester tester(view_->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("int8"), QStringLiteral("native"),
                           QStringLiteral("1,16"), QStringLiteral("64"), QStringLiteral("64")));
    QSignalSpy shown(view_, &WorkbenchView::resultShown);
    view_->startBench();
    QVERIFY(view_->job()->isRunning());
    QVERIFY(!view_->runButton()->isEnabled());  // one sweep at a time
    QVERIFY(shown.wait(kTimeoutMs));
    MatmulBenchModel* model = view_->model();
    QCOMPARE(model->rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
        QVERIFY(model->index(row, MatmulBenchModel::CpuGopsColumn).data(MatmulBenchModel::ValueRole).toDouble() > 0);
        QVERIFY(model->index(row, MatmulBenchModel::NpuTimeColumn).data(MatmulBenchModel::ValueRole).toDouble() > 0);
        const double percent = model->index(row, MatmulBenchModel::PeakPercentColumn).data(MatmulBenchModel::ValueRole).toDouble();
        QVERIFY(percent > 0 && percent <= 100);
    }
    QCOMPARE(model->index(1, MatmulBenchModel::MColumn).data(MatmulBenchModel::ValueRole).toLongLong(), 16);
    QCOMPARE(view_->chart()->seriesCount(), 1);
    QVERIFY(view_->runButton()->isEnabled());

    // Another type and layout is a second series; the same again replaces its own.
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("fp16"), QStringLiteral("norm"),
                           QStringLiteral("1,16"), QStringLiteral("64"), QStringLiteral("64")));
    view_->startBench();
    QVERIFY(shown.wait(kTimeoutMs));
    QCOMPARE(view_->chart()->seriesCount(), 2);
    view_->startBench();
    QVERIFY(shown.wait(kTimeoutMs));
    QCOMPARE(view_->chart()->seriesCount(), 2);
}

void MatmulViewTest::cancelStopsALongSweep() {
    // Many seconds of work (up to 2048 x 4096 x 4096 in fp16, 7 runs a point), cancelled after the first point.
    QVERIFY(view_->setForm(QStringLiteral("rk3588"), QStringLiteral("fp16"), QStringLiteral("norm"),
                           QStringLiteral("64,512,1024,2048"), QStringLiteral("4096"), QStringLiteral("4096")));
    QSignalSpy progress(view_->job(), &MatmulBenchJob::progress);
    QSignalSpy cancelled(view_->job(), &MatmulBenchJob::cancelled);
    QSignalSpy finished(view_->job(), &MatmulBenchJob::finished);
    const int rowsBefore = view_->model()->rowCount();
    view_->startBench();
    QVERIFY(progress.wait(kTimeoutMs));
    view_->cancelBench();
    QVERIFY(cancelled.wait(kTimeoutMs));
    QCOMPARE(finished.count(), 0);
    QCOMPARE(view_->model()->rowCount(), rowsBefore);  // the last finished sweep stays shown
    QVERIFY(!view_->job()->isRunning());
    QVERIFY(view_->runButton()->isEnabled());
}

void MatmulViewTest::cleanupTestCase() {
    window_.reset();
}

QTEST_MAIN(MatmulViewTest)
#include "gui_matmul_test.moc"
