// A view added by one folder and one registration (toyview/: it shows the model's node count) shows up in the
// window without any edit to the window: as a tab after the built-in ones, in the View menu with its shortcut, with
// its action in the Analyze menu, and on npuwb's own command line (`--view toy`, `--help`), run through the real
// main() linked with the toy view (gui_toy_app), which also checks main()'s `--run --report`. Runs offscreen.
#include <QAction>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "npuwb/Report.h"
#include "npuwb/Session.h"
#include "shell/MainWindow.h"
#include "toyview/ToyView.h"

using namespace npuwb::ui;
using npuwb::ui::testing::ToyView;

namespace {
constexpr int kTimeoutMs = 60000;

QMenu* menuNamed(QMainWindow& window, const QString& title) {
    for (QAction* action : window.menuBar()->actions())
        if (action->menu() && action->text().remove(QLatin1Char('&')) == title) return action->menu();
    return nullptr;
}

QAction* actionNamed(QMenu* menu, const QString& text) {
    for (QAction* action : menu->actions())
        if (action->text().remove(QLatin1Char('&')) == text) return action;
    return nullptr;
}

// Runs the real npuwb main() with the toy view linked in; its settings (recent files) go to `configDir`.
struct AppRun {
    int exitCode = -1;
    QString out, err;
};
AppRun runApp(const QStringList& args, const QString& configDir) {
    QProcess app;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), configDir);
    app.setProcessEnvironment(env);
    app.start(QStringLiteral(NPUWB_TOY_APP), args);
    AppRun run;
    if (!app.waitForFinished(kTimeoutMs)) return run;
    run.exitCode = app.exitStatus() == QProcess::NormalExit ? app.exitCode() : -1;
    run.out = QString::fromLocal8Bit(app.readAllStandardOutput());
    run.err = QString::fromLocal8Bit(app.readAllStandardError());
    return run;
}
}  // namespace

class ToyViewTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void isATabAfterTheBuiltInViews();
    void isInTheViewMenuWithItsShortcut();
    void itsActionIsInTheAnalyzeMenu();
    void showsTheNodeCountOfTheOpenModel();
    void commandLineKnowsIt();
    void commandLineRunWritesTheReport();
    void cleanupTestCase();

private:
    std::unique_ptr<MainWindow> window_;
    QTabWidget* tabs_ = nullptr;
};

void ToyViewTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_toyview_test"));
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    tabs_ = window_->findChild<QTabWidget*>(QStringLiteral("viewTabs"));
    QVERIFY(tabs_);
}

void ToyViewTest::isATabAfterTheBuiltInViews() {
    const std::vector<ViewInfo>& registered = ViewRegistry::instance().views();
    QCOMPARE(tabs_->count(), int(registered.size()));
    QVERIFY(registered.size() > 1);
    QCOMPARE(QString::fromLatin1(registered.back().name), QStringLiteral("toy"));  // the highest order, 900
    QCOMPARE(tabs_->tabText(tabs_->count() - 1), QStringLiteral("&Toy"));
    QVERIFY(qobject_cast<ToyView*>(tabs_->widget(tabs_->count() - 1)));
    QCOMPARE(window_->view(QStringLiteral("toy")), window_->view<ToyView>());
    // The registry's order is the tab order, for the built-in views too.
    for (int i = 0; i < tabs_->count(); ++i)
        QCOMPARE(tabs_->widget(i)->objectName(), QString::fromLatin1(registered[size_t(i)].name));
}

void ToyViewTest::isInTheViewMenuWithItsShortcut() {
    QMenu* viewMenu = menuNamed(*window_, QStringLiteral("View"));
    QVERIFY(viewMenu);
    QAction* show = actionNamed(viewMenu, QStringLiteral("Toy"));
    QVERIFY(show);
    QCOMPARE(show->shortcut(), QKeySequence(Qt::ALT | Qt::Key_9));
    tabs_->setCurrentIndex(0);
    show->trigger();
    QCOMPARE(tabs_->currentWidget(), window_->view<ToyView>());
    QVERIFY(window_->setCurrentView(QStringLiteral("layers")));
    QTest::keyClick(window_.get(), Qt::Key_9, Qt::AltModifier);
    QCOMPARE(tabs_->currentWidget(), window_->view<ToyView>());
}

void ToyViewTest::itsActionIsInTheAnalyzeMenu() {
    QMenu* analyze = menuNamed(*window_, QStringLiteral("Analyze"));
    QVERIFY(analyze);
    QCOMPARE(actionNamed(analyze, QStringLiteral("Count Nodes")), window_->view<ToyView>()->countAction());
}

void ToyViewTest::showsTheNodeCountOfTheOpenModel() {
    QCOMPARE(window_->view<ToyView>()->countLabel()->text(), QStringLiteral("no model"));
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(QStringLiteral(NPUWB_GUI_TEST_MODEL));
    QVERIFY(loaded.wait(kTimeoutMs));
    const int nodes = int(window_->workbench()->loadedModel()->summary.nodeCount);
    QVERIFY(nodes > 0);
    QCOMPARE(window_->view<ToyView>()->countLabel()->text(), QStringLiteral("%1 nodes").arg(nodes));
}

void ToyViewTest::commandLineKnowsIt() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const AppRun help = runApp({QStringLiteral("--help")}, dir.path());
    QCOMPARE(help.exitCode, 0);
    QVERIFY2(help.out.contains(QStringLiteral("toy")), qPrintable(help.out));

    const QString picture = dir.filePath(QStringLiteral("toy.png"));
    const AppRun shown = runApp({QStringLiteral(NPUWB_GUI_TEST_MODEL), QStringLiteral("--view"), QStringLiteral("toy"),
                                 QStringLiteral("--screenshot"), picture},
                                dir.path());
    QVERIFY2(shown.exitCode == 0, qPrintable(shown.err));
    QVERIFY(QImage(picture).width() > 0);

    const AppRun unknown = runApp({QStringLiteral("--view"), QStringLiteral("no-such-view")}, dir.path());
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY2(unknown.err.contains(QStringLiteral("no-such-view")) && unknown.err.contains(QStringLiteral("toy")),
             qPrintable(unknown.err));
}

void ToyViewTest::commandLineRunWritesTheReport() {
    // main()'s --run path: the local run on the default backend ("auto"), its report written by --report.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString report = dir.filePath(QStringLiteral("run.json"));
    const AppRun run = runApp({QStringLiteral(NPUWB_GUI_TEST_MODEL), QStringLiteral("--run"), QStringLiteral("--report"),
                               report},
                              dir.path());
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const npuwb::Report written = npuwb::loadReport(report.toStdString());
    QVERIFY(!written.layers.empty());
    QCOMPARE(written.environment.backend, npuwb::resolveBackendName("auto"));
    QVERIFY(runApp({QStringLiteral("--report"), report}, dir.path()).err.contains(QStringLiteral("--run")));
}

void ToyViewTest::cleanupTestCase() {
    window_.reset();
}

QTEST_MAIN(ToyViewTest)
#include "gui_toyview_test.moc"
