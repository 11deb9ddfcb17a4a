// Convert to RKNN dialog on PP-OCRv4 det, opened from the File menu of the real window: the script preview and
// exact command, no toolkit (Run disabled, command shown), the stand-in toolkit module (tests/rknpu/toolkit-standin)
// converting with progress, a cancel, and the session's last quantization followed. With NPUWB_SCREENSHOT_DIR set,
// the dialog is saved as PNGs there. Runs offscreen.
#include <QAction>
#include <QImage>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

#include "core/Workbench.h"
#include "dialogs/RknnConvertDialog.h"
#include "shell/FileActions.h"
#include "shell/MainWindow.h"

using namespace npuwb;
using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 60000;
const QString kPython = QStringLiteral("/usr/bin/python3");
}  // namespace

class RknnConvertGuiTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void showsTheScriptAndTheCommandWithoutToolkit();
    void runsWithTheToolkitAndReportsProgress();
    void cancelStopsTheToolkit();
    void followsTheSessionQuantization();

private:
    RknnConvertDialog* openDialog();
    void screenshot(QWidget* w, const QString& name);

    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> window_;
};

void RknnConvertGuiTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_rknn_convert_test"));
    const QString model = QStringLiteral(NPUWB_SOURCE_DIR "/tests/data/models/ch_PP-OCRv4_det_infer.onnx");
    if (!QFileInfo::exists(model)) QSKIP("no PP-OCRv4 det model (scripts/fetch-models.sh)");
    QVERIFY(dir_.isValid());
    // Two 64x64 pages and the PP-OCR preprocessing with a fixed size (the model's H and W are symbolic).
    QString list;
    for (int i = 0; i < 2; ++i) {
        QImage page(64, 64, QImage::Format_RGB888);
        page.fill(QColor(230, 230, 230));
        for (int y = 8 + i * 4; y < 56; y += 12)
            for (int x = 4; x < 50; ++x) page.setPixelColor(x, y, QColor(20, 20, 20));
        const QString name = QStringLiteral("page%1.png").arg(i);
        QVERIFY(page.save(dir_.filePath(name)));
        list += name + QLatin1Char('\n');
    }
    std::ofstream(dir_.filePath(QStringLiteral("dataset.txt")).toStdString()) << list.toStdString();
    std::ofstream(dir_.filePath(QStringLiteral("pre.json")).toStdString())
        << R"({"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225], "size": [64, 64]})";
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(model);
    QVERIFY(loaded.wait(kTimeoutMs));
}

void RknnConvertGuiTest::screenshot(QWidget* w, const QString& name) {
    const QByteArray folder = qgetenv("NPUWB_SCREENSHOT_DIR");
    if (folder.isEmpty()) return;
    QTest::qWait(100);
    QVERIFY(w->grab().save(QString::fromLocal8Bit(folder) + QLatin1Char('/') + name));
}

RknnConvertDialog* RknnConvertGuiTest::openDialog() {
    QAction* action = window_->files()->convertRknnAction();
    if (!action->isEnabled()) return nullptr;
    RknnConvertDialog* dialog = window_->files()->openConvertRknnDialog();
    if (!dialog) return nullptr;
    dialog->setDataset(dir_.filePath(QStringLiteral("dataset.txt")));
    dialog->setPreprocessing(dir_.filePath(QStringLiteral("pre.json")));
    dialog->setOutput(dir_.filePath(QStringLiteral("out/det.rknn")));
    dialog->setTarget(QStringLiteral("rk3588"));
    return dialog;
}

void RknnConvertGuiTest::showsTheScriptAndTheCommandWithoutToolkit() {
    qunsetenv("PYTHONPATH");
    RknnConvertDialog* dialog = openDialog();
    QVERIFY(dialog);
    QSignalSpy probed(dialog->job(), &RknnConvertJob::probed);
    dialog->setPython(kPython);
    QVERIFY(probed.wait(kTimeoutMs));
    QCOMPARE(probed.last().at(0).toBool(), false);
    QVERIFY(dialog->plan().has_value());
    QVERIFY(!dialog->runButton()->isEnabled());
    const QString script = dialog->scriptView()->toPlainText();
    QVERIFY2(script.contains(QStringLiteral("TARGET = \"rk3588\"")), qPrintable(script.left(400)));
    QVERIFY(script.contains(QStringLiteral("MEAN_VALUES = [[123.675,116.28,103.53]]")));
    QVERIFY(script.contains(QStringLiteral("INPUT_SIZE_LIST = [[1,3,64,64]]")));
    QCOMPARE(dialog->command(), QStringLiteral("'%1' '%2'").arg(kPython, dir_.filePath(QStringLiteral("out/det.convert.py"))));
    QVERIFY(dialog->writeScript());
    QVERIFY(QFileInfo::exists(dir_.filePath(QStringLiteral("out/det.convert.py"))));
    QVERIFY(QFileInfo::exists(dir_.filePath(QStringLiteral("out/det.dataset.txt"))));
    screenshot(dialog, QStringLiteral("rknn-convert-no-toolkit.png"));
    dialog->close();
}

void RknnConvertGuiTest::runsWithTheToolkitAndReportsProgress() {
    qputenv("PYTHONPATH", NPUWB_SOURCE_DIR "/tests/rknpu/toolkit-standin");
    qputenv("RKNN_STANDIN_LOG", dir_.filePath(QStringLiteral("gui-calls.log")).toLocal8Bit());
    RknnConvertDialog* dialog = openDialog();
    QVERIFY(dialog);
    QSignalSpy probed(dialog->job(), &RknnConvertJob::probed);
    dialog->setPython(kPython);
    QVERIFY(probed.wait(kTimeoutMs));
    QCOMPARE(probed.last().at(0).toBool(), true);
    QVERIFY(dialog->runButton()->isEnabled());
    QSignalSpy progress(dialog->job(), &RknnConvertJob::progress);
    QSignalSpy converted(dialog, &RknnConvertDialog::converted);
    QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
    QVERIFY(converted.wait(kTimeoutMs));
    const QString rknn = dir_.filePath(QStringLiteral("out/det.rknn"));
    QCOMPARE(converted.last().at(0).toString(), rknn);
    QFile file(rknn);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().startsWith("RKNN-STANDIN\n"));
    QCOMPARE(progress.size(), 4);  // config, load_onnx, build, export_rknn
    QCOMPARE(progress.last().at(0).toInt(), 4);
    QCOMPARE(dialog->progressBar()->value(), dialog->progressBar()->maximum());
    QVERIFY(dialog->logView()->toPlainText().contains(QStringLiteral("[npuwb] wrote ") + rknn));
    QVERIFY(dialog->statusText().startsWith(QStringLiteral("Converted: ")));
    screenshot(dialog, QStringLiteral("rknn-convert-run.png"));
    dialog->close();
}

void RknnConvertGuiTest::cancelStopsTheToolkit() {
    qputenv("PYTHONPATH", NPUWB_SOURCE_DIR "/tests/rknpu/toolkit-standin");
    qputenv("RKNN_STANDIN_SLEEP", "60");
    RknnConvertDialog* dialog = openDialog();
    QVERIFY(dialog);
    dialog->setOutput(dir_.filePath(QStringLiteral("out/slow.rknn")));
    QSignalSpy probed(dialog->job(), &RknnConvertJob::probed);
    dialog->setPython(kPython);
    QVERIFY(probed.wait(kTimeoutMs));
    QSignalSpy progress(dialog->job(), &RknnConvertJob::progress);
    QSignalSpy cancelled(dialog->job(), &RknnConvertJob::cancelled);
    dialog->startRun();
    QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 3, kTimeoutMs);  // in build(), which sleeps
    QElapsedTimer timer;
    timer.start();
    dialog->reject();  // Close while running cancels first
    QVERIFY(cancelled.wait(kTimeoutMs));
    QVERIFY2(timer.elapsed() < 15000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("out/slow.rknn"))));
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("out/slow.rknn.npuwb-tmp"))));
    QVERIFY(dialog->logView()->toPlainText().contains(QStringLiteral("[npuwb] cancelled")));
    qunsetenv("RKNN_STANDIN_SLEEP");
    dialog->close();
}

void RknnConvertGuiTest::followsTheSessionQuantization() {
    // What the Accuracy view records after a quantization: here two layers kept in fp16, one unknown.
    quant::QuantizeOptions options;
    options.scheme = quant::Scheme::W8A8;
    options.observer = quant::ObserverKind::MMSE;
    const std::map<std::string, quant::Precision> precisions = {{"p2o.Conv.60", quant::Precision::Fp16},
                                                                 {"p2o.Conv.61", quant::Precision::Fp16},
                                                                 {"p2o.Conv.0", quant::Precision::Int8}};
    window_->workbench()->setLastQuantization(std::make_shared<const rknn::QuantizationFacts>(
        rknn::quantizationFactsFromRun(options, precisions, nullptr, {}, {})));
    RknnConvertDialog* dialog = openDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->plan().has_value());
    QCOMPARE(dialog->plan()->quantizedAlgorithm, std::string("mmse"));
    QCOMPARE(dialog->plan()->hybridLayers.size(), size_t{2});
    QVERIFY(dialog->scriptView()->toPlainText().contains(QStringLiteral("\"conv2d_496.tmp_0\": \"node p2o.Conv.60")));
    screenshot(dialog, QStringLiteral("rknn-convert-session.png"));
    dialog->close();
}

QTEST_MAIN(RknnConvertGuiTest)
#include "gui_rknn_convert_test.moc"
