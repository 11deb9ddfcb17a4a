#include "shell/HelpMenu.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

#include "core/ItemViewCopy.h"
#include "shell/InstalledFiles.h"

namespace npuwb::ui {

namespace {
struct Shortcut {
    QString text;
    QString keys;
};

std::vector<Shortcut> shortcutsOf(const QMainWindow* window) {
    std::vector<Shortcut> out;
    for (const QAction* action : window->findChildren<QAction*>()) {
        if (action->shortcuts().isEmpty() || action->text().isEmpty()) continue;
        QStringList keys;
        for (const QKeySequence& k : action->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        const QString text = QString(action->text()).remove(QLatin1Char('&'));
        const Shortcut s{text, keys.join(QStringLiteral(", "))};
        const bool seen = std::any_of(out.begin(), out.end(),
                                      [&](const Shortcut& o) { return o.text == s.text && o.keys == s.keys; });
        if (!seen) out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [](const Shortcut& a, const Shortcut& b) {
        return QString::localeAwareCompare(a.text, b.text) < 0;
    });
    return out;
}

void showShortcuts(QMainWindow* window) {
    const std::vector<Shortcut> shortcuts = shortcutsOf(window);
    auto* dialog = new QDialog(window);
    dialog->setObjectName(QStringLiteral("shortcutsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(QApplication::translate("HelpMenu", "Keyboard Shortcuts"));
    auto* table = new QTableWidget(int(shortcuts.size()), 2, dialog);
    table->setHorizontalHeaderLabels(
        {QApplication::translate("HelpMenu", "Action"), QApplication::translate("HelpMenu", "Shortcut")});
    for (int r = 0; r < int(shortcuts.size()); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(shortcuts[size_t(r)].text));
        table->setItem(r, 1, new QTableWidgetItem(shortcuts[size_t(r)].keys));
    }
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    addCopyAction(table);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog->resize(460, 520);
    dialog->show();
}

void showAbout(QMainWindow* window) {
    auto* box = new QMessageBox(window);  // not exec(): the window keeps running (and tests can read it)
    box->setObjectName(QStringLiteral("aboutDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowTitle(QApplication::translate("HelpMenu", "About NPU Workbench"));
    box->setIconPixmap(window->windowIcon().pixmap(64, 64));
    box->setStandardButtons(QMessageBox::Ok);
    box->setText(
        QApplication::translate("HelpMenu",
                                "<h3>NPU Workbench %1</h3>"
                                "<p>Profile, estimate, optimize and quantize ONNX models for Rockchip NPUs; run "
                                "them on boards.</p>"
                                "<p>License: GPL-3.0-or-later. This program comes with ABSOLUTELY NO WARRANTY; it is "
                                "free software, and you may redistribute it under the terms of the GNU General "
                                "Public License, version 3 or any later version.</p>"
                                "<p>Built with Qt %2.</p>")
            .arg(QStringLiteral(NPUWB_UI_VERSION), QStringLiteral(QT_VERSION_STR)));
    box->show();
}
/// The installed README (PREFIX/share/doc/npuwb) beside the program; else the source tree's.
QString documentationPath() {
    return installedOrSourceFile(QStringLiteral("share/doc/npuwb/README.md"), QStringLiteral("README.md"));
}

/// The README rendered in a window of its own (Markdown, its links to the modules' READMEs followed in place), so
/// reading it needs no other program; Back returns from a followed link.
void showDocumentation(QMainWindow* window) {
    const QString path = documentationPath();
    if (path.isEmpty()) {
        auto* box = new QMessageBox(window);
        box->setObjectName(QStringLiteral("documentationDialog"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setWindowTitle(QApplication::translate("HelpMenu", "Documentation"));
        box->setText(QApplication::translate("HelpMenu", "The documentation (README.md) is not installed beside %1.")
                         .arg(QCoreApplication::applicationFilePath()));
        box->setInformativeText(QApplication::translate("HelpMenu", "Every command of npuwb-cli explains itself "
                                                                    "with --help."));
        box->show();
        return;
    }
    auto* dialog = new QDialog(window);
    dialog->setObjectName(QStringLiteral("documentationDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(QApplication::translate("HelpMenu", "Documentation — %1").arg(QDir::toNativeSeparators(path)));
    auto* browser = new QTextBrowser(dialog);
    browser->setObjectName(QStringLiteral("documentationBrowser"));
    browser->setOpenExternalLinks(true);  // web links go to the browser; README links stay here
    browser->setSource(QUrl::fromLocalFile(path), QTextDocument::MarkdownResource);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QPushButton* back = buttons->addButton(QApplication::translate("HelpMenu", "Back"), QDialogButtonBox::ActionRole);
    back->setEnabled(false);
    QObject::connect(browser, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
    QObject::connect(back, &QPushButton::clicked, browser, &QTextBrowser::backward);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(browser);
    layout->addWidget(buttons);
    dialog->resize(window->size() * 0.8);
    dialog->show();
}
}  // namespace

QString shortcutListText(const QMainWindow* window) {
    QStringList lines;
    for (const Shortcut& s : shortcutsOf(window)) lines << s.keys + QLatin1Char('\t') + s.text;
    return lines.join(QLatin1Char('\n'));
}

QMenu* addHelpMenu(QMainWindow* window) {
    QMenu* help = window->menuBar()->addMenu(QApplication::translate("HelpMenu", "&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction* shortcuts = help->addAction(QApplication::translate("HelpMenu", "&Keyboard Shortcuts"), window,
                                         [window] { showShortcuts(window); });
    shortcuts->setObjectName(QStringLiteral("shortcutsAction"));
    shortcuts->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    QAction* docs = help->addAction(QApplication::translate("HelpMenu", "&Documentation"), window,
                                    [window] { showDocumentation(window); });
    docs->setObjectName(QStringLiteral("documentationAction"));
    docs->setShortcut(QKeySequence::HelpContents);
    help->addSeparator();
    QAction* about = help->addAction(QApplication::translate("HelpMenu", "&About NPU Workbench"), window,
                                     [window] { showAbout(window); });
    about->setObjectName(QStringLiteral("aboutAction"));
    about->setMenuRole(QAction::AboutRole);
    QAction* aboutQt = help->addAction(QApplication::translate("HelpMenu", "About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setObjectName(QStringLiteral("aboutQtAction"));
    aboutQt->setMenuRole(QAction::AboutQtRole);
    return help;
}

}  // namespace npuwb::ui
