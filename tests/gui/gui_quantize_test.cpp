// Quantize dialog and Accuracy view on a real (torch-exported) model and real PNG images: preview, quantize on
// the worker, per-layer table (checked by QAbstractItemModelTester) and chart, selection shared with the layer
// table, a per-layer precision override re-evaluated in place, cancel. Runs offscreen.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <map>

#include "core/LayerNameDelegate.h"
#include "core/Workbench.h"
#include "dialogs/QuantizeDialog.h"
#include "jobs/QuantizeJob.h"
#include "models/AccuracyModel.h"
#include "models/LayerSelection.h"
#include "shell/MainWindow.h"
#include "views/accuracy/AccuracyView.h"

using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 120000;  // calibration + analysis of a small model, generous for a loaded CI machine
}

class QuantizeGuiTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void previewShowsThePreprocessedImage();
    void quantizesAndShowsAccuracy();
    void accuracyIdsAreTheLayersIds();
    void sortsByCosineNumerically();
    void chartFollowsTheTableOrder();
    void selectionIsShared();
    void reevaluatesWithPrecisionOverride();
    void cancelStopsQuantization();
    void gptqRoundingReachesTheExport();
    void cleanupTestCase();

private:
    QuantizeDialog* openDialog();
    AccuracyView* accuracy() const { return window_->view<AccuracyView>(); }

    QTemporaryDir dir_;
    QString dataset_;
    std::unique_ptr<MainWindow> window_;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers_;
};

void QuantizeGuiTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_quantize_test"));
    QVERIFY(dir_.isValid());
    // Eight different images (colour gradients of different sizes) in a folder: a data set.
    for (int i = 0; i < 8; ++i) {
        QImage image(40 + 4 * i, 30 + 2 * i, QImage::Format_RGB888);
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                image.setPixelColor(x, y, QColor((x * 7 + i * 30) % 256, (y * 9) % 256, (x * y + i) % 256));
        QVERIFY(image.save(dir_.filePath(QStringLiteral("img%1.png").arg(i))));
    }
    dataset_ = dir_.path();
    window_ = std::make_unique<MainWindow>();
    const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(accuracy()->model(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(accuracy()->proxy(), mode));
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(QStringLiteral(NPUWB_GUI_TEST_MODEL));
    QVERIFY(loaded.wait(kTimeoutMs));
    QVERIFY(accuracy()->quantizeAction()->isEnabled());
    QCOMPARE(accuracy()->quantizeAction()->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+Q")));
}

QuantizeDialog* QuantizeGuiTest::openDialog() {
    QuantizeDialog* dialog = accuracy()->openQuantizeDialog();
    if (!dialog) return nullptr;
    dialog->setAskToSave(false);
    dialog->schemeBox()->setCurrentText(QStringLiteral("w8a8"));
    dialog->observerBox()->setCurrentText(QStringLiteral("minmax"));
    dialog->roundingBox()->setCurrentText(QStringLiteral("nearest"));
    dialog->autoHybridBox()->setChecked(false);
    dialog->setDataset(dataset_);
    return dialog;
}

void QuantizeGuiTest::previewShowsThePreprocessedImage() {
    QuantizeDialog* dialog = openDialog();
    QVERIFY(dialog);
    QVERIFY(!dialog->previewLabel()->pixmap().isNull());
    QVERIFY2(dialog->previewInfo()->text().contains(QStringLiteral("8 samples")), qPrintable(dialog->previewInfo()->text()));
    QVERIFY(dialog->previewInfo()->text().contains(QStringLiteral("[1,3,32,32]")));
    // A bad data set: no preview, a message naming it.
    dialog->setDataset(dir_.filePath(QStringLiteral("missing.txt")));
    QVERIFY(dialog->previewLabel()->pixmap().isNull());
    QVERIFY(dialog->previewInfo()->text().contains(QStringLiteral("missing.txt")));
    dialog->close();
}

void QuantizeGuiTest::quantizesAndShowsAccuracy() {
    QuantizeDialog* dialog = openDialog();
    QVERIFY(dialog);
    QSignalSpy done(accuracy(), &AccuracyView::quantizationShown);
    dialog->startQuantize();
    QVERIFY(!dialog->quantizeButton()->isEnabled());
    QVERIFY(done.wait(kTimeoutMs));
    QVERIFY(dialog->outcome());
    // The Workbench remembers it for Convert to RKNN: scheme, observer and data set of this run.
    const auto facts = window_->workbench()->lastQuantization();
    QVERIFY(facts);
    QVERIFY(facts->scheme == dialog->outcome()->request.options.scheme);
    QVERIFY(facts->observer == dialog->outcome()->request.options.observer);
    QCOMPARE(QString::fromStdString(facts->datasetPath), dialog->outcome()->request.dataset);
    dialog->close();
    AccuracyModel* model = accuracy()->model();
    QVERIFY(model->rowCount() >= 5);
    QCOMPARE(accuracy()->plot()->graph(0)->dataCount(), model->rowCount());
    QCOMPARE(accuracy()->plot()->graph(1)->dataCount(), model->rowCount());
    bool someInt8 = false, someBelowOne = false;
    for (int r = 0; r < model->rowCount(); ++r) {
        someInt8 |= model->index(r, AccuracyModel::PrecisionColumn).data().toString() == QLatin1String("int8");
        const double c = model->index(r, AccuracyModel::EntireCosineColumn).data(AccuracyModel::SortRole).toDouble();
        QVERIFY(c > 0.5 && c <= 1.0 + 1e-9);
        someBelowOne |= c < 1.0;
    }
    QVERIFY(someInt8);
    QVERIFY(someBelowOne);  // int8 really changed something
    QVERIFY(accuracy()->summaryLabel()->text().contains(QStringLiteral("w8a8")));
    QVERIFY(accuracy()->reevaluateButton()->isEnabled());
}

void QuantizeGuiTest::accuracyIdsAreTheLayersIds() {
    // One ID per layer in every tab: the Accuracy table shows the Layers table's, not the analysis' own step, and
    // a node the opened model lacks (the analysis' prepared copy made it) a fresh number, never another layer's.
    const AccuracyModel* model = accuracy()->model();
    QVERIFY(model->rowCount() > 0);
    std::map<qlonglong, QString> nameOfId;
    for (int r = 0; r < model->rowCount(); ++r) {
        const QString name = model->index(r, AccuracyModel::LayerColumn).data().toString();
        const int id = window_->workbench()->selection()->layerOfNode(name);
        QVERIFY2(id >= 0, qPrintable(name));
        QCOMPARE(model->index(r, AccuracyModel::IdColumn).data().toLongLong(), qlonglong(id));
        QCOMPARE(model->index(r, AccuracyModel::LayerColumn).data(Qt::ToolTipRole).toString(), name);
        const auto [it, added] = nameOfId.emplace(qlonglong(id), name);
        QVERIFY2(added || it->second == name, qPrintable(QStringLiteral("ID %1: %2 and %3").arg(id).arg(it->second, name)));
    }
    // A report numbered otherwise (a vendor's, an older file) is shown with the model's IDs: nothing moves.
    const QString first = model->index(0, AccuracyModel::LayerColumn).data().toString();
    const qlonglong firstId = model->index(0, AccuracyModel::IdColumn).data().toLongLong();
    auto renumbered = std::make_shared<npuwb::Report>();
    renumbered->layers = window_->workbench()->loadedModel()->layers;
    for (npuwb::LayerRow& l : renumbered->layers) l.id += 100;
    window_->workbench()->showReport(renumbered);
    QCOMPARE(qlonglong(window_->workbench()->selection()->layerOfNode(first)), firstId);
    QCOMPARE(model->index(0, AccuracyModel::IdColumn).data().toLongLong(), firstId);
    // Long layer names keep the end that tells them apart ("…/layer1/conv/Conv"), not both ends.
    auto* table = accuracy()->findChild<QTableView*>(QStringLiteral("accuracyTable"));
    QVERIFY(qobject_cast<LayerNameDelegate*>(table->itemDelegateForColumn(AccuracyModel::LayerColumn)));
    QVERIFY(accuracy()->placeholder()->isHidden());
    QVERIFY(!accuracy()->plot()->isHidden());
}

void QuantizeGuiTest::sortsByCosineNumerically() {
    QTableView* table = accuracy()->table();
    table->sortByColumn(AccuracyModel::EntireCosineColumn, Qt::AscendingOrder);
    QSortFilterProxyModel* proxy = accuracy()->proxy();
    for (int r = 1; r < proxy->rowCount(); ++r)
        QVERIFY(proxy->index(r - 1, AccuracyModel::EntireCosineColumn).data(AccuracyModel::SortRole).toDouble() <=
                proxy->index(r, AccuracyModel::EntireCosineColumn).data(AccuracyModel::SortRole).toDouble());
    table->sortByColumn(AccuracyModel::IdColumn, Qt::AscendingOrder);
}

void QuantizeGuiTest::chartFollowsTheTableOrder() {
    AccuracyView* view = accuracy();
    QSortFilterProxyModel* proxy = view->proxy();
    QCPGraph* entire = view->plot()->graph(0);
    const auto checkOrder = [&] {
        QCOMPARE(entire->dataCount(), proxy->rowCount());
        for (int p = 0; p < proxy->rowCount(); ++p) {
            QCOMPARE(entire->data()->at(p)->key, double(p));
            QCOMPARE(entire->data()->at(p)->value,
                     proxy->index(p, AccuracyModel::EntireCosineColumn).data(AccuracyModel::SortRole).toDouble());
            QCOMPARE(view->sourceRowAt(p), proxy->mapToSource(proxy->index(p, 0)).row());
        }
    };
    // By layer ID (the default): x is the execution order, the first tick the first layer's ID.
    QCOMPARE(proxy->sortColumn(), int(AccuracyModel::IdColumn));
    checkOrder();
    auto ticker = view->plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker && !ticker->ticks().isEmpty());
    QCOMPARE(ticker->ticks().value(0), proxy->index(0, AccuracyModel::IdColumn).data().toString());
    const QString tip = view->pointToolTip(0);
    QVERIFY2(tip.contains(proxy->index(0, AccuracyModel::LayerColumn).data().toString().toHtmlEscaped()), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("entire cosine")), qPrintable(tip));
    QVERIFY(view->pointToolTip(proxy->rowCount()).isEmpty());  // past the last point
    // Sorted by entire cosine: the chart reorders with the table, worst layers first.
    view->table()->sortByColumn(AccuracyModel::EntireCosineColumn, Qt::AscendingOrder);
    checkOrder();
    for (int p = 1; p < entire->dataCount(); ++p)
        QVERIFY(entire->data()->at(p - 1)->value <= entire->data()->at(p)->value);
    QVERIFY(view->plot()->xAxis->label().contains(QStringLiteral("sorted by")));
    view->table()->sortByColumn(AccuracyModel::IdColumn, Qt::AscendingOrder);
    checkOrder();
}

void QuantizeGuiTest::selectionIsShared() {
    AccuracyView* view = accuracy();
    const QModelIndex cell = view->proxy()->index(2, AccuracyModel::LayerColumn);
    const QString name = cell.data().toString();
    QTest::mouseClick(view->table()->viewport(), Qt::LeftButton, {}, view->table()->visualRect(cell).center());
    QCOMPARE(window_->workbench()->selection()->selectedNodes(), QStringList{name});
    // And back: selecting the layer elsewhere selects its row here.
    const QString other = view->proxy()->index(4, AccuracyModel::LayerColumn).data().toString();
    window_->workbench()->selection()->selectNodes({other});
    const QModelIndexList rows = view->table()->selectionModel()->selectedRows(AccuracyModel::LayerColumn);
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.front().data().toString(), other);
}

void QuantizeGuiTest::reevaluatesWithPrecisionOverride() {
    AccuracyModel* model = accuracy()->model();
    int row = -1;
    for (int r = 0; r < model->rowCount() && row < 0; ++r)
        if (model->index(r, AccuracyModel::PrecisionColumn).data().toString() == QLatin1String("int8")) row = r;
    QVERIFY(row >= 0);
    const QString layer = model->index(row, AccuracyModel::LayerColumn).data().toString();
    QVERIFY(!model->setData(model->index(row, AccuracyModel::PrecisionColumn), QStringLiteral("int3")));
    QVERIFY(model->setData(model->index(row, AccuracyModel::PrecisionColumn), QStringLiteral("float")));
    QCOMPARE(model->overrides().size(), size_t{1});
    QVERIFY(accuracy()->reevaluateButton()->text().contains(QStringLiteral("1")));
    QSignalSpy done(accuracy(), &AccuracyView::quantizationShown);
    QTest::mouseClick(accuracy()->reevaluateButton(), Qt::LeftButton);
    QVERIFY(done.wait(kTimeoutMs));
    const int again = model->rowOfLayer(layer);
    QVERIFY(again >= 0);
    QCOMPARE(model->index(again, AccuracyModel::PrecisionColumn).data().toString(), QStringLiteral("float"));
    QVERIFY(model->overrides().empty());  // what ran now is what the table shows
}

void QuantizeGuiTest::cancelStopsQuantization() {
    QuantizeDialog* dialog = openDialog();
    QVERIFY(dialog);
    QSignalSpy cancelled(dialog->job(), &QuantizeJob::cancelled);
    QSignalSpy finished(dialog->job(), &QuantizeJob::finished);
    dialog->startQuantize();
    dialog->reject();  // Cancel while running: stops the job, keeps the dialog
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->job()->isRunning(), kTimeoutMs);
    // A small model may finish before the cancel flag is seen; either way it ends and the dialog stays usable.
    QCOMPARE(cancelled.size() + finished.size(), 1);
    QVERIFY(dialog->quantizeButton()->isEnabled());
    dialog->close();
}

void QuantizeGuiTest::gptqRoundingReachesTheExport() {
    QuantizeDialog* dialog = openDialog();
    QVERIFY(dialog);
    dialog->schemeBox()->setCurrentText(QStringLiteral("w4a16"));
    dialog->roundingBox()->setCurrentText(QStringLiteral("gptq"));
    if (const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(dialog->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/quantize_dialog_gptq.png")));
    QSignalSpy done(accuracy(), &AccuracyView::quantizationShown);
    dialog->startQuantize();
    QVERIFY(done.wait(kTimeoutMs));
    QVERIFY(dialog->outcome());
    QCOMPARE(dialog->outcome()->quantModel->metadata.at("npuwb.quant.weight_rounding"), std::string("gptq"));
    QVERIFY(!dialog->outcome()->calibration.weightCorrelations.empty());
    QVERIFY2(accuracy()->summaryLabel()->text().contains(QStringLiteral("gptq weight rounding")),
             qPrintable(accuracy()->summaryLabel()->text()));
    if (const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(window_->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/accuracy_gptq.png")));
    dialog->close();
}

void QuantizeGuiTest::cleanupTestCase() {
    testers_.clear();
    window_.reset();
}

QTEST_MAIN(QuantizeGuiTest)
#include "gui_quantize_test.moc"
