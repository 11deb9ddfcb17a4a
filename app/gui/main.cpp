// npuwb: the NPU Workbench GUI. `npuwb [MODEL] [--run] [--screenshot FILE.png]`
#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>
#include <QTimer>

#include "MainWindow.h"

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
    parser.addOption(runOption);
    parser.addOption(screenshotOption);
    parser.process(app);

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
    if (parser.isSet(screenshotOption)) {
        const QString file = parser.value(screenshotOption);
        window.resize(1400, 900);  // the same picture on every machine, whatever geometry was saved
        if (model.isEmpty()) {
            QTimer::singleShot(0, &window, [&window, file] { grabAndQuit(&window, file); });
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
