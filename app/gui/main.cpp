// npuwb: the NPU Workbench GUI.
// `npuwb [MODEL] [--input-shape NAME=D1,D2,...]... [--run [--report FILE.json]] [--view NAME] [--target CHIP]
//        [--screenshot FILE.png] [--quantize-dataset LIST] [--accuracy-json REPORT]`; NAME is any registered view
// (npuwb --help lists them). A scripted session (--run, --report, --screenshot, --quantize-dataset) never opens a
// dialog: input shapes it lacks are an error on stderr and exit status 1.
#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTextStream>
#include <QTimer>

#include <functional>

#include "core/EventLoopProbe.h"
#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "core/WorkbenchView.h"
#include "models/InputShapes.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/ModelIO.h"
#include "npuwb/ProcessMemory.h"
#include "npuwb/SchemaWarmUp.h"
#include "run/RunController.h"
#include "shell/FileActions.h"
#include "shell/MainWindow.h"
#include "views/accuracy/AccuracyView.h"

using npuwb::ui::MainWindow;
using npuwb::ui::Workbench;

namespace {

// Grabs the window once the view has had a moment to lay out and replot, then quits.
void grabAndQuit(MainWindow* window, const QString& file, npuwb::ui::EventLoopProbe* probe) {
    QTimer::singleShot(300, window, [window, file, probe] {
        if (probe) probe->setPhase(QStringLiteral("screenshot"));  // rendering the picture is no user's wait
        const bool saved = window->grab().save(file);
        if (!saved) QTextStream(stderr) << "npuwb: cannot write screenshot " << file << '\n';
        QApplication::exit(saved ? 0 : 1);
    });
}

int fail(const QString& message) {
    QTextStream(stderr) << "npuwb: " << message << '\n';
    return 1;
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
    // NPUWB_EVENT_LOOP_PROBE=FILE: how long the GUI thread blocked, per phase, written to FILE at exit.
    npuwb::ui::EventLoopProbe* probe = npuwb::ui::EventLoopProbe::fromEnvironment(&app);
    auto phase = [probe](const QString& name) {
        if (!probe) return;
        probe->setPhase(name);
        probe->mark(name);
    };

    const QString viewNames = npuwb::ui::ViewRegistry::instance().names().join(QStringLiteral(", "));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("NPU Workbench: inspect, run and profile ONNX models."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("ONNX model to open."), QStringLiteral("[MODEL]"));
    const QCommandLineOption runOption(QStringLiteral("run"), QStringLiteral("Profile the model right after loading."));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a picture of the window to FILE once loading (and what the other options start) is done, "
                       "then quit."),
        QStringLiteral("FILE"));
    const QCommandLineOption viewOption(
        QStringLiteral("view"),
        QStringLiteral("Show this tab: %1. A view with work of its own (estimate, suggestions, timeline: a partition "
                       "run with the remembered device, schedules and frames) starts it right after loading (and "
                       "--screenshot waits for it).").arg(viewNames),
        QStringLiteral("VIEW"));
    const QCommandLineOption reportOption(
        QStringLiteral("report"),
        QStringLiteral("With --run: write the run's report (JSON, as File > Export Report) to FILE when it finishes; "
                       "without --screenshot, quit then."),
        QStringLiteral("FILE"));
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
    const QCommandLineOption inputShapeOption(
        QStringLiteral("input-shape"),
        QStringLiteral("Sizes for an input's symbolic dims, as in npuwb-cli (repeatable), e.g. x=1,3,480,480: what "
                       "every job on the model uses, as if given in Run > Input Shapes."),
        QStringLiteral("NAME=D1,D2,..."));
    parser.addOptions({inputShapeOption, quantizeOption, accuracyOption, viewOption, targetOption, runOption,
                       reportOption, screenshotOption});
    parser.process(app);
    // ONNX's operator schemas build on a second thread while the window comes up: the first model opens sooner.
    npuwb::onnxconv::SchemaRegistryWarmUpScope schemas;

    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) return fail(QStringLiteral("expected at most one model, got %1").arg(positional.size()));
    const QString model = positional.value(0);
    const bool run = parser.isSet(runOption);
    const QString quantizeDataset = parser.value(quantizeOption);
    if (model.isEmpty() && (run || !quantizeDataset.isEmpty()))
        return fail(QStringLiteral("--%1 needs a MODEL").arg(run ? QStringLiteral("run") : QStringLiteral("quantize-dataset")));
    const QString reportFile = parser.value(reportOption);
    if (!reportFile.isEmpty() && !run) return fail(QStringLiteral("--report needs --run"));
    npuwb::ui::InputShapeMap givenShapes;
    try {
        std::vector<std::string> specs;
        for (const QString& spec : parser.values(inputShapeOption)) specs.push_back(spec.toStdString());
        givenShapes = npuwb::parseInputShapeSpecs(specs);
    } catch (const npuwb::Error& e) {
        return fail(QString::fromStdString(e.what()));
    }
    if (!givenShapes.empty() && model.isEmpty()) return fail(QStringLiteral("--input-shape needs a MODEL"));
    const QString screenshot = parser.value(screenshotOption);
    const bool scripted = run || !reportFile.isEmpty() || !screenshot.isEmpty() || !quantizeDataset.isEmpty();

    MainWindow window;
    Workbench* workbench = window.workbench();
    npuwb::ui::WorkbenchView* view = nullptr;
    if (parser.isSet(viewOption)) {
        view = window.view(parser.value(viewOption));
        if (!view) return fail(QStringLiteral("unknown view '%1' (%2)").arg(parser.value(viewOption), viewNames));
        window.setCurrentView(view->objectName());
    }
    if (parser.isSet(targetOption)) {
        npuwb::ui::TargetOptions target = workbench->target();
        target.chip = parser.value(targetOption);
        if (!workbench->setTarget(target)) return fail(QStringLiteral("no chip profile '%1'").arg(target.chip));
    }
    auto* accuracy = window.view<npuwb::ui::AccuracyView>();
    const QString accuracyJson = parser.value(accuracyOption);
    if (!accuracyJson.isEmpty() && model.isEmpty() && !accuracy->showAccuracyReport(accuracyJson)) return 1;

    if (scripted)  // no one to answer the Input Shapes dialog: the shapes given, else those last used with the file
        workbench->setInputShapesAsker([workbench](const std::function<void()>& proceed) {
            const auto loaded = workbench->loadedModel();
            const auto inputs = npuwb::ui::declaredInputs(*loaded->model);
            QSettings settings;
            const npuwb::ui::InputShapeMap remembered = npuwb::ui::rememberedShapes(settings, loaded->path);
            QString problem = npuwb::ui::givenShapesProblem(inputs, remembered);
            if (problem.isEmpty()) problem = npuwb::ui::missingShapesProblem(inputs, remembered);
            if (!problem.isEmpty()) {
                QTextStream(stderr) << "npuwb: " << loaded->path << ": " << problem << '\n';
                QApplication::exit(1);
                return;
            }
            QTextStream(stderr) << "npuwb: " << loaded->path << ": the input shapes last used with it: "
                                << npuwb::ui::inputShapesText(remembered) << '\n';
            workbench->setInputShapes(remembered);
            proceed();
        });

    // Once the model is in: one piece of work, and what --screenshot waits for.
    auto shootWhen = [&window, screenshot, phase, probe](auto* sender, auto signal) {
        QObject::connect(sender, signal, &window, [phase] { phase(QStringLiteral("done")); }, Qt::SingleShotConnection);
        if (!screenshot.isEmpty())
            QObject::connect(
                sender, signal, &window, [&window, screenshot, probe] { grabAndQuit(&window, screenshot, probe); },
                Qt::SingleShotConnection);
    };
    QObject::connect(workbench, &Workbench::modelLoaded, &window, [&, view, accuracy] {
        if (!givenShapes.empty()) {
            const auto loaded = workbench->loadedModel();
            // Given inputs are checked now; a symbolic input left out is asked for (or refused) by the job needing it.
            const QString problem =
                loaded->runtime.isEmpty()
                    ? npuwb::ui::givenShapesProblem(npuwb::ui::declaredInputs(*loaded->model), givenShapes)
                    : QStringLiteral("--input-shape is for ONNX models; a compiled model's shapes are fixed");
            if (!problem.isEmpty()) {
                QTextStream(stderr) << "npuwb: " << loaded->path << ": " << problem << '\n';
                QApplication::exit(1);
                return;
            }
            workbench->setInputShapes(givenShapes);
        }
        phase(run ? QStringLiteral("run") : view ? view->objectName() : QStringLiteral("done"));
        // Loading a model clears the Accuracy view, so a report is shown once the model is in.
        if (!accuracyJson.isEmpty() && !accuracy->showAccuracyReport(accuracyJson)) QApplication::exit(1);
        if (!quantizeDataset.isEmpty()) {
            shootWhen(accuracy, &npuwb::ui::WorkbenchView::resultShown);
            accuracy->quantizeWithDataset(quantizeDataset);
        } else if (run) {
            if (!reportFile.isEmpty())
                QObject::connect(window.runner(), &npuwb::ui::RunController::runFinished, &window, [&] {
                    if (!window.files()->exportReport(reportFile)) return;  // operationFailed quits with 1
                    if (screenshot.isEmpty()) QApplication::exit(0);
                }, Qt::SingleShotConnection);
            if (view) {
                // The view's own work (an estimate, a partition), if any, follows the run; the picture waits for it.
                QObject::connect(window.runner(), &npuwb::ui::RunController::runFinished, &window, [&, view] {
                    QTimer::singleShot(0, &window, [&, view] {  // once the run's job no longer counts as busy
                        phase(view->objectName());
                        if (view->startFromCommandLine()) shootWhen(view, &npuwb::ui::WorkbenchView::resultShown);
                        else if (!screenshot.isEmpty()) grabAndQuit(&window, screenshot, probe);
                    });
                }, Qt::SingleShotConnection);
            } else {
                shootWhen(window.runner(), &npuwb::ui::RunController::runFinished);
            }
            window.runner()->startRun();
        } else if (view && view->startFromCommandLine()) {
            shootWhen(view, &npuwb::ui::WorkbenchView::resultShown);
        } else if (!screenshot.isEmpty()) {
            grabAndQuit(&window, screenshot, probe);
        }
    }, Qt::SingleShotConnection);
    if (!screenshot.isEmpty()) {
        window.resize(1400, 900);  // the same picture on every machine, whatever geometry was saved
        if (model.isEmpty())
            QTimer::singleShot(0, &window, [&window, screenshot, probe] { grabAndQuit(&window, screenshot, probe); });
    }
    if (!screenshot.isEmpty() || !reportFile.isEmpty()) {
        // A failure would otherwise leave an unattended run waiting on a message box forever.
        QObject::connect(workbench, &Workbench::operationFailed, &window, [](const QString& message) {
            QTextStream(stderr) << "npuwb: " << message << '\n';
            QApplication::exit(1);
        });
    }
    window.show();
    if (!model.isEmpty()) {
        phase(QStringLiteral("open"));
        window.openModel(model);
    }
    return app.exec();
}
