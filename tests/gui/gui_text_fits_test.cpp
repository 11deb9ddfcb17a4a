// Text that fits, on the real main window at 1400x900 and 1920x1080: PP-OCRv4 det at 1x3x480x480 and resnet18, run,
// estimated, advised and partitioned, then every view shown in turn. In each, every visible label shows its whole
// text (or wraps it into its height), every visible table header section holds its title, every chart's axis label
// fits along its axis and its legend lists every named series inside the plot, the property trees' keys are whole,
// and the Model panel keeps its width from tab to tab; the graph's legend names every op type, no two in colours a
// reader could confuse. A failure names the view, the widget and the text that was cut. Runs offscreen; with
// NPUWB_SCREENSHOT_DIR set it saves every view there.
#include <QAbstractItemView>
#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTextDocument>
#include <QTreeView>
#include <qcustomplot.h>

#include "core/LayerNameDelegate.h"
#include "core/Workbench.h"
#include "core/WorkbenchView.h"
#include "models/OpTypeColors.h"
#include "run/RunController.h"
#include "shell/MainWindow.h"
#include "shell/ModelInfoPanel.h"

using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 120000;

bool shownOnScreen(const QWidget* w) {
    return w->isVisible() && w->width() > 0 && w->height() > 0 && !w->visibleRegion().isEmpty();
}

// The width a label's text needs on one line (rich text laid out as Qt lays it out).
int oneLineWidth(const QLabel* label) {
    if (Qt::mightBeRichText(label->text()) && label->textFormat() != Qt::PlainText) {
        QTextDocument doc;
        doc.setDefaultFont(label->font());
        doc.setDocumentMargin(0);
        doc.setHtml(label->text());
        return int(std::ceil(doc.idealWidth()));
    }
    int widest = 0;
    for (const QString& line : label->text().split(QLatin1Char('\n')))
        widest = std::max(widest, label->fontMetrics().horizontalAdvance(line));
    return widest;
}

QString describe(const QWidget* w) {
    return QStringLiteral("%1 '%2'").arg(QString::fromLatin1(w->metaObject()->className()), w->objectName());
}

// Every visible text of `root` that is cut, as "widget: text (needs N px, has M px)".
QStringList cutTexts(QWidget* root, int* checked) {
    QStringList cut;
    for (QLabel* label : root->findChildren<QLabel*>()) {
        if (!shownOnScreen(label) || label->text().isEmpty() || !label->pixmap().isNull()) continue;
        ++*checked;
        const int has = label->contentsRect().width() - 2 * label->margin() - 2 * label->indent();
        if (label->wordWrap()) {
            const int needs = label->heightForWidth(label->width());
            if (needs > label->height() + 1)
                cut << QStringLiteral("%1: '%2' wraps to %3 px of height, has %4")
                           .arg(describe(label), label->text().left(80)).arg(needs).arg(label->height());
        } else if (const int needs = oneLineWidth(label); needs > has + 1) {
            cut << QStringLiteral("%1: '%2' needs %3 px, has %4")
                       .arg(describe(label), label->text().left(80)).arg(needs).arg(has);
        }
    }
    for (QHeaderView* header : root->findChildren<QHeaderView*>()) {
        if (!shownOnScreen(header) || header->orientation() != Qt::Horizontal) continue;
        const int margin = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) +
                           header->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header);
        for (int s = 0; s < header->count(); ++s) {
            if (header->isSectionHidden(s) || header->sectionViewportPosition(s) + header->sectionSize(s) >
                                                  header->viewport()->width())
                continue;  // scrolled out of sight: the user scrolls to it, nothing is cut
            const QString title = header->model()->headerData(s, Qt::Horizontal).toString();
            ++*checked;
            const int needs = header->fontMetrics().horizontalAdvance(title) + margin;
            if (!title.isEmpty() && needs > header->sectionSize(s) + 1)
                cut << QStringLiteral("%1 header: '%2' needs %3 px, has %4")
                           .arg(describe(header->parentWidget()), title).arg(needs).arg(header->sectionSize(s));
        }
    }
    // A tree's first column holds the keys of property panels ("Cosine (error up to here)"): never cut.
    for (QTreeView* tree : root->findChildren<QTreeView*>()) {
        if (!shownOnScreen(tree) || !tree->model()) continue;
        for (QModelIndex index = tree->indexAt(QPoint(1, 1)); index.isValid(); index = tree->indexBelow(index)) {
            const QModelIndex key = index.siblingAtColumn(0);
            const QRect cell = tree->visualRect(key);
            if (cell.top() > tree->viewport()->height()) break;
            const QString text = key.data().toString();
            if (text.isEmpty()) continue;
            ++*checked;
            // The style's text margin inside a cell, as QCommonStyle lays out an item.
            const int margin = 2 * (tree->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, tree) + 1);
            int needs = tree->fontMetrics().horizontalAdvance(text) + margin;
            if (key.data(Qt::DecorationRole).isValid()) needs += tree->iconSize().width() > 0 ? tree->iconSize().width()
                                                                                              : 16;
            if (QFont font = key.data(Qt::FontRole).value<QFont>(); key.data(Qt::FontRole).isValid())
                needs = QFontMetrics(font).horizontalAdvance(text) + margin;
            if (needs > cell.width() + 1)
                cut << QStringLiteral("%1: key '%2' needs %3 px, has %4")
                           .arg(describe(tree), text).arg(needs).arg(cell.width());
        }
    }
    for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
        if (!shownOnScreen(plot)) continue;
        QList<QCPAxis*> axes;
        for (QCPAxisRect* rect : plot->axisRects()) axes += rect->axes();
        for (QCPAxis* axis : axes) {
            if (!axis->visible() || axis->label().isEmpty()) continue;
            ++*checked;
            const QFontMetrics metrics(axis->labelFont());
            int needs = 0;
            for (const QString& line : axis->label().split(QLatin1Char('\n')))
                needs = std::max(needs, metrics.horizontalAdvance(line));
            const QRect along = axis->axisRect()->rect();
            const int has = axis->orientation() == Qt::Horizontal ? along.width() : along.height();
            if (needs > has)
                cut << QStringLiteral("%1 axis: '%2' needs %3 px, the axis has %4")
                           .arg(describe(plot), axis->label()).arg(needs).arg(has);
        }
        if (plot->legend && plot->legend->visible()) {
            int named = 0;
            for (int i = 0; i < plot->plottableCount(); ++i)
                if (!plot->plottable(i)->name().isEmpty() && plot->legend->hasItemWithPlottable(plot->plottable(i)))
                    ++named;
            int listed = 0;
            for (int i = 0; i < plot->legend->itemCount(); ++i)
                if (plot->legend->item(i) && qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i))) ++listed;
            if (listed < named)
                cut << QStringLiteral("%1 legend lists %2 of %3 series").arg(describe(plot)).arg(listed).arg(named);
            const QRect outer = plot->legend->outerRect();
            if (outer.right() > plot->width() + 1)
                cut << QStringLiteral("%1 legend ends at %2 px of %3").arg(describe(plot)).arg(outer.right()).arg(
                           plot->width());
        }
    }
    return cut;
}
}  // namespace

class TextFitsTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void layerNamesKeepTheirDistinctiveEnd();
    void everyViewFits_data();
    void everyViewFits();
    void cleanupTestCase();

private:
    void openRunAndAnalyse(const QString& model, const QString& inputShape);
    std::unique_ptr<MainWindow> window_;
    QString opened_;
};

void TextFitsTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_text_fits_test"));
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
}

void TextFitsTest::layerNamesKeepTheirDistinctiveEnd() {
    const QFontMetrics metrics(QApplication::font());
    const QString name = QStringLiteral("/features/features.3/conv/conv.2/Conv");
    QCOMPARE(elideLayerName(name, metrics, metrics.horizontalAdvance(name)), name);  // fits: whole
    // Leading scopes go first, whole: the block index that tells mobilenet_v2's rows apart stays.
    const QString scopes = QStringLiteral("…/features.3/conv/conv.2/Conv");
    QCOMPARE(elideLayerName(name, metrics, metrics.horizontalAdvance(scopes)), scopes);
    QCOMPARE(elideLayerName(name, metrics, metrics.horizontalAdvance(scopes) + 5), scopes);
    // Narrower than the last two parts: characters from the left, the end still there.
    const QString tight = elideLayerName(name, metrics, metrics.horizontalAdvance(QStringLiteral("…conv.2/Conv")));
    QVERIFY2(tight.endsWith(QStringLiteral("conv.2/Conv")) && tight.startsWith(QStringLiteral("…")), qPrintable(tight));
    const QString tf = QStringLiteral("StatefulPartitionedCall/model/conv2d_3/Conv2D");
    const QString kept = elideLayerName(tf, metrics, metrics.horizontalAdvance(QStringLiteral("…/conv2d_3/Conv2D")));
    QCOMPARE(kept, QStringLiteral("…/conv2d_3/Conv2D"));
}

void TextFitsTest::openRunAndAnalyse(const QString& model, const QString& inputShape) {
    if (opened_ == model) return;
    opened_ = model;
    Workbench* workbench = window_->workbench();
    QSignalSpy loaded(workbench, &Workbench::modelLoaded);
    window_->openModel(QStringLiteral(NPUWB_MODELS_DIR "/") + model);
    QVERIFY(loaded.wait(kTimeoutMs));
    if (!inputShape.isEmpty()) {
        const QStringList parts = inputShape.split(QLatin1Char('='));
        npuwb::Shape dims;
        for (const QString& d : parts[1].split(QLatin1Char(','))) dims.push_back(d.toLongLong());
        QSignalSpy resolved(workbench, &Workbench::shapesResolved);
        workbench->setInputShapes({{parts[0].toStdString(), dims}});
        QVERIFY(resolved.wait(kTimeoutMs));
    }
    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    window_->runner()->startRun();
    QVERIFY(finished.wait(kTimeoutMs));
    QTRY_VERIFY_WITH_TIMEOUT(!workbench->isBusy(), kTimeoutMs);
    // The views with work of their own: estimate, advice, partition.
    for (const QString& name : {QStringLiteral("estimate"), QStringLiteral("suggestions"), QStringLiteral("timeline")}) {
        WorkbenchView* view = window_->view(name);
        QVERIFY2(view, qPrintable(name));
        QSignalSpy shown(view, &WorkbenchView::resultShown);
        QVERIFY2(view->startFromCommandLine(), qPrintable(name));
        QVERIFY2(shown.wait(kTimeoutMs), qPrintable(name));
        QTRY_VERIFY_WITH_TIMEOUT(!workbench->isBusy(), kTimeoutMs);
    }
}

void TextFitsTest::everyViewFits_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("inputShape");
    QTest::addColumn<QSize>("size");
    for (const QSize size : {QSize(1400, 900), QSize(1920, 1080)}) {
        const QString at = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        QTest::newRow(qPrintable(QStringLiteral("PP-OCRv4 det 480, ") + at))
            << QStringLiteral("ch_PP-OCRv4_det_infer.onnx") << QStringLiteral("x=1,3,480,480") << size;
        QTest::newRow(qPrintable(QStringLiteral("resnet18, ") + at)) << QStringLiteral("resnet18.onnx") << QString()
                                                                      << size;
    }
}

void TextFitsTest::everyViewFits() {
    QFETCH(QString, model);
    QFETCH(QString, inputShape);
    QFETCH(QSize, size);
    if (!QFile::exists(QStringLiteral(NPUWB_MODELS_DIR "/") + model))
        QSKIP("the fetched models are missing (scripts/fetch-models.sh)");
    openRunAndAnalyse(model, inputShape);
    window_->resize(size);
    QStringList cut;
    int panelWidth = -1;
    for (WorkbenchView* view : window_->views()) {
        window_->setCurrentView(view->objectName());
        QTest::qWait(50);  // layouts settle and charts replot
        QCoreApplication::processEvents();
        if (const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR"); !dir.isEmpty())  // to look at, view by view
            QVERIFY(window_->grab().save(QStringLiteral("%1/fits-%2-%3x%4-%5.png")
                                             .arg(QString::fromLocal8Bit(dir), QFileInfo(model).baseName())
                                             .arg(size.width())
                                             .arg(size.height())
                                             .arg(view->objectName())));
        int checked = 0;
        for (const QString& text : cutTexts(window_.get(), &checked))
            cut << view->objectName() + QStringLiteral(": ") + text;
        qInfo("%s: %d texts checked", qPrintable(view->objectName()), checked);
        QVERIFY2(checked > 5, qPrintable(view->objectName()));  // the view is on screen, with its texts
        // A view wider at its minimum than the window leaves beside the panel would squeeze the panel when it is
        // the tab the window opens on.
        const int room = size.width() - window_->modelInfo()->sizeHint().width() - 40;
        if (view->minimumSizeHint().width() > room)
            cut << QStringLiteral("%1: needs at least %2 px, leaving the Model panel less than its %3")
                       .arg(view->objectName()).arg(view->minimumSizeHint().width())
                       .arg(window_->modelInfo()->sizeHint().width());
        const int width = window_->modelInfo()->width();
        if (panelWidth < 0) panelWidth = width;
        if (width != panelWidth)
            cut << QStringLiteral("%1: the Model panel is %2 px wide, %3 on the first tab")
                       .arg(view->objectName()).arg(width).arg(panelWidth);
    }
    // The graph's legend names every op type of the model, each in a colour no other of them shares.
    window_->setCurrentView(QStringLiteral("graph"));
    auto* legend = window_->findChild<QLabel*>(QStringLiteral("graphLegend"));
    QVERIFY(legend);
    QTRY_VERIFY_WITH_TIMEOUT(legend->text().contains(QStringLiteral("Op type")), kTimeoutMs);
    const auto& ops = window_->workbench()->loadedModel()->summary.opHistogram;
    for (const auto& [op, count] : ops) {
        const QString entry = QStringLiteral("%1 ×%2").arg(QString::fromStdString(op)).arg(count);
        if (!legend->text().contains(entry)) cut << QStringLiteral("graph legend: no '%1'").arg(entry);
        for (const auto& [other, ignored] : ops) {
            const double distance =
                colourDistance(opTypeColor(QString::fromStdString(op)), opTypeColor(QString::fromStdString(other)));
            if (op < other && distance < 15)
                cut << QStringLiteral("%1 and %2 share a colour (distance %3)")
                           .arg(QString::fromStdString(op), QString::fromStdString(other))
                           .arg(distance, 0, 'f', 1);
        }
    }
    QVERIFY2(cut.isEmpty(), qPrintable(cut.join(QLatin1Char('\n'))));
}

void TextFitsTest::cleanupTestCase() {
    window_.reset();
}

QTEST_MAIN(TextFitsTest)
#include "gui_text_fits_test.moc"
