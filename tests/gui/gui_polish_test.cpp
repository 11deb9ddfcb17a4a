// The window's shared conveniences on the real main window: the Help menu (About with version and license, the
// keyboard shortcuts read from the window, About Qt), the Model panel closed and brought back from the View menu,
// Copy (Ctrl+C and the context menu) on every table and tree as tab-separated rows, the Accuracy view's placeholder
// before any analysis, the Add Board dialog's mnemonics (buddies, no literal '&'), and the Quantize dialog's input
// size (prefilled from a fixed input shape, left to the user for PP-OCRv4 det's symbolic one) and mmse default.
// With NPUWB_SCREENSHOT_DIR set it saves the Quantize dialog on PP-OCRv4 det there. Runs offscreen.
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <qcustomplot.h>

#include "core/ExportActions.h"
#include "core/ItemViewCopy.h"
#include "core/Workbench.h"
#include "dialogs/ConnectionDialog.h"
#include "dialogs/QuantizeDialog.h"
#include "models/LayerTableModel.h"
#include "npuwb/ModelIO.h"
#include "shell/HelpMenu.h"
#include "shell/MainWindow.h"
#include "shell/ModelInfoPanel.h"
#include "views/accuracy/AccuracyView.h"
#include "views/layers/LayerTableView.h"
#include "views/layers/LayersView.h"

using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 60000;

QMenu* menuTitled(QMainWindow& window, const QString& title) {
    for (QAction* a : window.menuBar()->actions())
        if (a->menu() && a->text().remove(QLatin1Char('&')) == title) return a->menu();
    return nullptr;
}
}  // namespace

class PolishTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void helpMenuHasAboutShortcutsAndAboutQt();
    void modelPanelComesBackFromTheViewMenu();
    void everyTableCopiesSelectedRowsAsTabSeparatedText();
    void tablesExportCsvAndChartsSaveAsPngOrPdf();
    void emptyAccuracyPlotShowsAPlaceholder();
    void addBoardDialogLabelsHaveBuddies();
    void quantizeDialogPrefillsTheInputSizeAndDefaultsToMmse();
    void quantizeDialogAsksForTheSizeOfASymbolicInput();
    void layersShapeColumnsFitAt1400x900();
    void cleanupTestCase();

private:
    std::unique_ptr<MainWindow> window_;
};

void PolishTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_polish_test"));
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(QStringLiteral(NPUWB_GUI_TEST_MODEL));
    QVERIFY(loaded.wait(kTimeoutMs));
}

void PolishTest::helpMenuHasAboutShortcutsAndAboutQt() {
    QMenu* help = menuTitled(*window_, QStringLiteral("Help"));
    QVERIFY(help);
    QStringList entries;
    for (QAction* a : help->actions()) entries << a->text().remove(QLatin1Char('&'));
    QVERIFY(entries.contains(QStringLiteral("About NPU Workbench")));
    QVERIFY(entries.contains(QStringLiteral("Keyboard Shortcuts")));
    QVERIFY(entries.contains(QStringLiteral("About Qt")));
    QVERIFY(entries.contains(QStringLiteral("Documentation")));  // opens the README (installed or the source tree's)
    // Menus in the usual order, and File ends with Quit even with the views' own entries (Save Partition Report…).
    QStringList titles;
    for (QAction* a : window_->menuBar()->actions()) titles << a->text().remove(QLatin1Char('&'));
    QCOMPARE(titles, (QStringList{QStringLiteral("File"), QStringLiteral("Edit"), QStringLiteral("View"),
                                  QStringLiteral("Run"), QStringLiteral("Analyze"), QStringLiteral("Help")}));
    QMenu* file = menuTitled(*window_, QStringLiteral("File"));
    QVERIFY(file && !file->actions().isEmpty());
    QCOMPARE(file->actions().last()->text().remove(QLatin1Char('&')), QStringLiteral("Quit"));
    QCOMPARE(window_->findChild<QAction*>(QStringLiteral("documentationAction"))->shortcut(),
             QKeySequence(QKeySequence::HelpContents));
    // The README opens here, rendered, with no other program (the build tree finds the source tree's).
    window_->findChild<QAction*>(QStringLiteral("documentationAction"))->trigger();
    auto* docs = window_->findChild<QDialog*>(QStringLiteral("documentationDialog"));
    QVERIFY(docs);
    auto* browser = docs->findChild<QTextBrowser*>(QStringLiteral("documentationBrowser"));
    QVERIFY(browser);
    QVERIFY2(browser->toPlainText().contains(QStringLiteral("NPU Workbench")), qPrintable(browser->toPlainText().left(200)));
    QVERIFY(!browser->toPlainText().contains(QStringLiteral("## ")));  // Markdown rendered, not shown as text
    docs->close();

    window_->findChild<QAction*>(QStringLiteral("aboutAction"))->trigger();
    auto* about = window_->findChild<QMessageBox*>(QStringLiteral("aboutDialog"));
    QVERIFY(about);
    QVERIFY(about->text().contains(QStringLiteral(NPUWB_VERSION)));
    QVERIFY(about->text().contains(QStringLiteral("GPL-3.0-or-later")));
    about->close();

    // The list is read from the window's actions: the views' own (F6, F7), the window's, the Help menu's.
    const QString list = shortcutListText(window_.get());
    for (const char* expected : {"F6\tEstimate on Chip", "F7\tAdvise", "Keyboard Shortcuts", "Model Panel"})
        QVERIFY2(list.contains(QLatin1String(expected)), expected);
    window_->findChild<QAction*>(QStringLiteral("shortcutsAction"))->trigger();
    auto* dialog = window_->findChild<QDialog*>(QStringLiteral("shortcutsDialog"));
    QVERIFY(dialog);
    auto* table = dialog->findChild<QTableWidget*>();
    QCOMPARE(table->rowCount(), int(list.count(QLatin1Char('\n'))) + 1);
    dialog->close();
}

void PolishTest::modelPanelComesBackFromTheViewMenu() {
    auto* dock = window_->findChild<QDockWidget*>(QStringLiteral("modelInfoDock"));
    QVERIFY(dock);
    QVERIFY(dock->features().testFlag(QDockWidget::DockWidgetClosable));
    QVERIFY(dock->isVisible());
    dock->close();
    QVERIFY(!dock->isVisible());
    QAction* show = window_->findChild<QAction*>(QStringLiteral("showModelPanelAction"));
    QVERIFY(show);
    QVERIFY(menuTitled(*window_, QStringLiteral("View"))->actions().contains(show));
    QVERIFY(!show->isChecked());
    show->trigger();
    QVERIFY(dock->isVisible());
    // Long values (symbolic shapes) are elided in the middle; the tooltip holds the whole text.
    QCOMPARE(window_->modelInfo()->textElideMode(), Qt::ElideMiddle);
}

void PolishTest::everyTableCopiesSelectedRowsAsTabSeparatedText() {
    int views = 0;
    for (QAbstractItemView* v : window_->findChildren<QAbstractItemView*>()) {
        if (!qobject_cast<QTableView*>(v) && !qobject_cast<QTreeView*>(v)) continue;
        ++views;
        QAction* copy = addCopyAction(v);  // the window's, found again (no second one)
        QCOMPARE(v->findChildren<QAction*>(QStringLiteral("copyRowsAction")).size(), 1);
        QCOMPARE(copy->shortcut(), QKeySequence(QKeySequence::Copy));
        QVERIFY2(v->actions().contains(copy), qPrintable(v->objectName()));
        QCOMPARE(v->contextMenuPolicy(), Qt::ActionsContextMenu);
    }
    QVERIFY(views >= 6);  // layers, estimate, suggestions, accuracy, timeline, boards, matmul, the model panel
    window_->setCurrentView(QStringLiteral("layers"));
    QTableView* table = window_->view<LayersView>()->tableView()->tableView();
    table->setFocus();
    table->selectionModel()->select(table->model()->index(0, 0),
                                    QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table->selectionModel()->select(table->model()->index(2, 0),
                                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QApplication::clipboard()->clear();
    QTest::keyClick(table, Qt::Key_C, Qt::ControlModifier);
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);  // the header and two rows
    QVERIFY(lines[0].startsWith(QStringLiteral("ID\tName\t")));
    const QStringList first = lines[1].split(QLatin1Char('\t'));
    QCOMPARE(first.value(1), table->model()->index(0, LayerTableModel::NameColumn).data().toString());
    QCOMPARE(lines[2].split(QLatin1Char('\t')).value(1),
             table->model()->index(2, LayerTableModel::NameColumn).data().toString());
    QCOMPARE(first.size(), lines[0].split(QLatin1Char('\t')).size());
}

void PolishTest::tablesExportCsvAndChartsSaveAsPngOrPdf() {
    for (QAbstractItemView* v : window_->findChildren<QAbstractItemView*>()) {
        if (!qobject_cast<QTableView*>(v) && !qobject_cast<QTreeView*>(v)) continue;
        QAction* exportCsv = addExportCsvAction(v);  // the window's, found again
        QCOMPARE(v->findChildren<QAction*>(QStringLiteral("exportCsvAction")).size(), 1);
        QVERIFY2(v->actions().contains(exportCsv), qPrintable(v->objectName()));
    }
    int plots = 0;
    for (QCustomPlot* plot : window_->findChildren<QCustomPlot*>()) {
        ++plots;
        QAction* save = addSaveChartAction(plot);
        QCOMPARE(plot->findChildren<QAction*>(QStringLiteral("saveChartAction")).size(), 1);
        QVERIFY(plot->actions().contains(save));
        QCOMPARE(plot->contextMenuPolicy(), Qt::ActionsContextMenu);
    }
    QVERIFY(plots >= 5);  // layers, estimate (2), accuracy, timeline, matmul, memory ...
    // The Layers table as CSV: the header and every row, fields as shown.
    window_->setCurrentView(QStringLiteral("layers"));
    QTableView* table = window_->view<LayersView>()->tableView()->tableView();
    const QStringList lines = allRowsCsv(table).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), table->model()->rowCount() + 1);
    QVERIFY(lines[0].startsWith(QStringLiteral("ID,Name,")));
    QVERIFY(lines[1].contains(table->model()->index(0, LayerTableModel::NameColumn).data().toString()));
    // A chart as PNG and PDF, each written whole under its name (no temporary left).
    QCustomPlot* plot = window_->findChildren<QCustomPlot*>().front();
    plot->resize(400, 300);
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::TempLocation);
    for (const QString& name : {QStringLiteral("npuwb-chart-test.png"), QStringLiteral("npuwb-chart-test.pdf")}) {
        const QString path = dir + QLatin1Char('/') + name;
        QFile::remove(path);
        QCOMPARE(saveChart(plot, path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray head = file.read(4);
        QCOMPARE(head, name.endsWith(QLatin1String(".pdf")) ? QByteArray("%PDF") : QByteArray("\x89PNG"));
        QVERIFY(!QFile::exists(path + QStringLiteral(".part")));
        file.close();
        QFile::remove(path);
    }
    QVERIFY(!saveChart(plot, QStringLiteral("/nonexistent-folder/x.png")).isEmpty());
}

void PolishTest::emptyAccuracyPlotShowsAPlaceholder() {
    window_->setCurrentView(QStringLiteral("accuracy"));
    AccuracyView* view = window_->view<AccuracyView>();
    QVERIFY(view->placeholder()->isVisible());
    QVERIFY(!view->plot()->isVisible());
    QVERIFY(view->placeholder()->text().contains(QStringLiteral("Quantize")));
}

void PolishTest::addBoardDialogLabelsHaveBuddies() {
    ConnectionDialog dialog(BoardEntry{}, {}, window_.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    int mnemonics = 0;
    for (QLabel* label : dialog.findChildren<QLabel*>()) {
        if (!label->text().contains(QLatin1Char('&'))) continue;
        ++mnemonics;
        // A label with a buddy draws "&I" as an underlined I; without one it shows the '&'.
        QVERIFY2(label->buddy(), qPrintable(label->text()));
    }
    QVERIFY(mnemonics >= 7);  // name, host, identity, known hosts, ssh config, cache, timeout
}

void PolishTest::quantizeDialogPrefillsTheInputSizeAndDefaultsToMmse() {
    QuantizeDialog dialog(window_->workbench()->currentModel(), window_.get());
    QCOMPARE(dialog.observerBox()->currentText(), QStringLiteral("mmse"));
    const npuwb::Model& model = *window_->workbench()->currentModel();
    const auto& shape = *model.graph.inputs.front().type.shape;  // smallnet: [1, 3, H, W], fixed
    QCOMPARE(dialog.heightBox()->value(), int(shape[2].value));
    QCOMPARE(dialog.widthBox()->value(), int(shape[3].value));
    dialog.widthBox()->setValue(48);
    dialog.heightBox()->setValue(40);
    const auto request = dialog.request();
    const auto& p = request.preprocessing.at("*");
    QCOMPARE(p.width, 48);
    QCOMPARE(p.height, 40);
    dialog.heightBox()->setValue(0);
    QVERIFY_THROWS_EXCEPTION(npuwb::Error, dialog.request());  // width without height
}

void PolishTest::quantizeDialogAsksForTheSizeOfASymbolicInput() {
    const QString path = QStringLiteral(NPUWB_SOURCE_DIR "/tests/data/models/ch_PP-OCRv4_det_infer.onnx");
    auto model = std::make_shared<const npuwb::Model>(npuwb::loadModel(path.toStdString()));
    auto* dialog = new QuantizeDialog(model, window_.get());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QCOMPARE(dialog->widthBox()->value(), 0);  // "model's": H and W are symbolic, the user gives them
    QCOMPARE(dialog->widthBox()->text(), dialog->widthBox()->specialValueText());
    dialog->widthBox()->setValue(640);
    dialog->heightBox()->setValue(640);
    QCOMPARE(dialog->request().preprocessing.at("*").width, 640);
    if (const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(dialog->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/sug-quantize-dialog.png")));
    dialog->close();
}

void PolishTest::layersShapeColumnsFitAt1400x900() {
    // PP-OCRv4 det: long names and symbolic shapes. Before a run, both shape columns are on screen at the default size.
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(QStringLiteral(NPUWB_SOURCE_DIR "/tests/data/models/ch_PP-OCRv4_det_infer.onnx"));
    QVERIFY(loaded.wait(kTimeoutMs));
    window_->resize(1400, 900);
    window_->setCurrentView(QStringLiteral("layers"));
    QTableView* table = window_->view<LayersView>()->tableView()->tableView();
    QTRY_VERIFY(table->isVisible());
    QCoreApplication::processEvents();
    QVERIFY(table->isColumnHidden(LayerTableModel::TimeColumn));  // nothing measured yet
    const int right = table->columnViewportPosition(LayerTableModel::OutputShapesColumn) +
                      table->columnWidth(LayerTableModel::OutputShapesColumn);
    QVERIFY2(right <= table->viewport()->width(),
             qPrintable(QStringLiteral("output shapes end at %1 of %2 px").arg(right).arg(table->viewport()->width())));
    QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
    const QModelIndex shape = table->model()->index(0, LayerTableModel::InputShapesColumn);
    QCOMPARE(shape.data(Qt::ToolTipRole).toString(), shape.data().toString());
}

void PolishTest::cleanupTestCase() {
    window_.reset();
}

QTEST_MAIN(PolishTest)
#include "gui_polish_test.moc"
