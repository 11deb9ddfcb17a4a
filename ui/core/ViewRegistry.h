#pragma once
// The window's tabs, registered by the views themselves: a new view is its folder plus one NPUWB_GUI_VIEW line in
// its .cpp. The tab order, the View menu and its shortcuts, `npuwb --view NAME` and the saved current tab all come
// from here, so a view's name is written once.
//
//   NPUWB_GUI_VIEW(EstimateView, "estimate", QT_TRANSLATE_NOOP("views", "&Estimate"), Qt::ALT | Qt::Key_2, 20);
#include <QKeyCombination>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

class QWidget;

namespace npuwb::ui {

class Workbench;
class WorkbenchView;

struct ViewInfo {
    const char* name = "";   // --view NAME, the tab's object name and settings group (lower case)
    const char* title = "";  // tab text with its & mnemonic, translated in context "views"
    QKeyCombination shortcut;
    int order = 0;           // tab position: lower first
    std::function<WorkbenchView*(Workbench&, QWidget* parent)> create;

    QString translatedTitle() const;
};

class ViewRegistry {
public:
    static ViewRegistry& instance();
    /// Always true (it feeds a static initializer); a second view of the same name is a programming error.
    bool add(ViewInfo info);
    /// Sorted by order.
    const std::vector<ViewInfo>& views() const { return views_; }
    const ViewInfo* find(const QString& name) const;
    QStringList names() const;

private:
    std::vector<ViewInfo> views_;
};

}  // namespace npuwb::ui

#define NPUWB_GUI_VIEW(CLASS, NAME, TITLE, SHORTCUT, ORDER)                                                       \
    [[maybe_unused]] static const bool npuwbViewRegistered_##CLASS = ::npuwb::ui::ViewRegistry::instance().add( \
        {.name = NAME,                                                                                           \
         .title = TITLE,                                                                                         \
         .shortcut = SHORTCUT,                                                                                   \
         .order = ORDER,                                                                                         \
         .create = [](::npuwb::ui::Workbench& workbench, QWidget* parent) -> ::npuwb::ui::WorkbenchView* {       \
             return new CLASS(workbench, parent);                                                                \
         }})
