// npuwb: the NPU Workbench GUI.
// `npuwb [MODEL] [--run] [--view layers|estimate|suggestions|accuracy] [--target CHIP] [--screenshot FILE.png]
//        [--quantize-dataset LIST] [--accuracy-json REPORT]`
#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>
#include <QTimer>

#include "MainWindow.h"
#include "jobs/EstimateJob.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/SchemaWarmUp.h"
#include "views/TargetOptionsBar.h"
#include "npuwb/ProcessMemory.h"

namespace {

// Grabs the window once the view has had a moment to lay out and replot, then quits.
void grabAndQuit(npuwb::ui::MainWindow* window, const QString& file) {
    QTimer::singleShot(300, window, [window, file] {
        const bool saved = window->grab().save(file);
        if (!saved) QTextStream(stderr) << "npuwb: cannot write screenshot " << file << '\n';
        QApplication::exit(saved ? 0 : 1);
    });
}

}  // namespace

int main(int argc, char** argv) {
    npuwb::returnLargeFreedBlocksToSystem();
    npuwb::removeTemporaryFilesOnSignals();  // a killed save leaves no hidden temporary file
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("npuwb"));
    QApplication::setApplicationName(QStringLiteral("npuwb"));
    QApplication::setApplicationDisplayName(QStringLiteral("NPU Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(NPUWB_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("NPU Workbench: inspect, run and profile ONNX models."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("ONNX model to open."), QStringLiteral("[MODEL]"));
    const QCommandLineOption runOption(QStringLiteral("run"), QStringLiteral("Profile the model locally right after loading."));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a picture of the window to FILE once loading (and with --run, running) is done, then quit."),
        QStringLiteral("FILE"));
    const QCommandLineOption viewOption(
        QStringLiteral("view"),
        QStringLiteral("Show this tab: layers, estimate, suggestions or accuracy. estimate/suggestions also estimate/advise "
                       "right after loading (and --screenshot waits for that)."),
        QStringLiteral("VIEW"));
    const QCommandLineOption targetOption(QStringLiteral("target"),
                                          QStringLiteral("Chip profile for Estimate and Suggestions, e.g. rk3588."),
                                          QStringLiteral("CHIP"));
    const QCommandLineOption quantizeOption(
        QStringLiteral("quantize-dataset"),
        QStringLiteral("Quantize the model on this data set (dataset.txt or image folder) right after loading, with the "
                       "Quantize dialog's remembered settings, and show the Accuracy view (--screenshot waits for it)."),
        QStringLiteral("LIST"));
    const QCommandLineOption accuracyOption(
        QStringLiteral("accuracy-json"),
        QStringLiteral("Show an accuracy report (npuwb-cli accuracy --json) in the Accuracy view."), QStringLiteral("REPORT"));
    parser.addOption(quantizeOption);
    parser.addOption(accuracyOption);
    parser.addOption(viewOption);
    parser.addOption(targetOption);
    parser.addOption(runOption);
    parser.addOption(screenshotOption);
    parser.process(app);
    // ONNX's operator schemas build on a second thread while the window comes up: the first model opens sooner.
    npuwb::onnxconv::SchemaRegistryWarmUpScope schemas;

    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        QTextStream(stderr) << "npuwb: expected at most one model, got " << positional.size() << '\n';
        return 1;
    }
    const QString model = positional.value(0);
    const bool run = parser.isSet(runOption);
    if (run && model.isEmpty()) {
        QTextStream(stderr) << "npuwb: --run needs a MODEL\n";
        return 1;
    }

    npuwb::ui::MainWindow window;
    const QString view = parser.value(viewOption).toLower();
    if (!view.isEmpty() && !window.setCurrentView(view)) {
        QTextStream(stderr) << "npuwb: unknown view '" << view << "' (layers, estimate, suggestions, accuracy)\n";
        return 1;
    }
    if (parser.isSet(targetOption)) {
        npuwb::ui::TargetOptions target = window.targetOptions()->options();
        target.chip = parser.value(targetOption);
        window.targetOptions()->setOptions(target);
        if (window.targetOptions()->options().chip.compare(target.chip, Qt::CaseInsensitive) != 0) {
            QTextStream(stderr) << "npuwb: no chip profile '" << target.chip << "'\n";
            return 1;
        }
    }
    const QString quantizeDataset = parser.value(quantizeOption);
    const QString accuracyJson = parser.value(accuracyOption);
    if (!quantizeDataset.isEmpty() && model.isEmpty()) {
        QTextStream(stderr) << "npuwb: --quantize-dataset needs a MODEL\n";
        return 1;
    }
    // Loading a model clears the Accuracy view, so a report is shown once the model is in.
    if (!accuracyJson.isEmpty()) {
        if (model.isEmpty()) {
            if (!window.showAccuracyReport(accuracyJson)) return 1;
        } else {
            QObject::connect(&window, &npuwb::ui::MainWindow::modelLoaded, &window, [&window, accuracyJson] {
                if (!window.showAccuracyReport(accuracyJson)) QApplication::exit(1);
            });
        }
    }
    if (!quantizeDataset.isEmpty())
        QObject::connect(&window, &npuwb::ui::MainWindow::modelLoaded, &window,
                         [&window, quantizeDataset] { window.quantizeWithDataset(quantizeDataset); });
    const bool analyze = !model.isEmpty() && (view == QLatin1String("estimate") || view == QLatin1String("suggestions"));
    if (analyze)
        QObject::connect(&window, &npuwb::ui::MainWindow::modelLoaded, &window, [&window, view] {
            if (view == QLatin1String("estimate")) window.startEstimate();
            else window.startAdvise();
        });
    if (parser.isSet(screenshotOption)) {
        const QString file = parser.value(screenshotOption);
        window.resize(1400, 900);  // the same picture on every machine, whatever geometry was saved
        if (model.isEmpty()) {
            QTimer::singleShot(0, &window, [&window, file] { grabAndQuit(&window, file); });
        } else if (!quantizeDataset.isEmpty()) {
            QObject::connect(&window, &npuwb::ui::MainWindow::quantizeFinished, &window,
                             [&window, file] { grabAndQuit(&window, file); });
        } else if (analyze) {
            const auto done = view == QLatin1String("estimate") ? &npuwb::ui::MainWindow::estimateFinished
                                                                : &npuwb::ui::MainWindow::adviceFinished;
            QObject::connect(&window, done, &window, [&window, file] { grabAndQuit(&window, file); });
        } else if (run) {
            QObject::connect(&window, &npuwb::ui::MainWindow::runFinished, &window,
                             [&window, file] { grabAndQuit(&window, file); });
        } else {
            QObject::connect(&window, &npuwb::ui::MainWindow::modelLoaded, &window,
                             [&window, file] { grabAndQuit(&window, file); });
        }
        // A failure would otherwise leave an unattended run waiting on a message box forever.
        QObject::connect(&window, &npuwb::ui::MainWindow::operationFailed, &window, [](const QString& message) {
            QTextStream(stderr) << "npuwb: " << message << '\n';
            QApplication::exit(1);
        });
    }
    window.show();
    if (!model.isEmpty()) {
        window.setRunAfterLoad(run);
        window.openModel(model);
    }
    return app.exec();
}
