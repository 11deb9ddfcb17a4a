#pragma once
// What the window shows before any model is open: how to open one, the bundled sample to try at once, and the
// recent files, each one click away. The views' tabs take its place as soon as a model loads.
#include <QWidget>

class QListWidget;
class QPushButton;

namespace npuwb::ui {

class StartPage : public QWidget {
    Q_OBJECT
public:
    explicit StartPage(QWidget* parent = nullptr);
    /// Recent model files, newest first (missing files are left out).
    void setRecentFiles(const QStringList& files);
    QListWidget* recentList() const { return recent_; }
    QPushButton* sampleButton() const { return sample_; }

signals:
    void openRequested();                   // the Open dialog
    void fileChosen(const QString& path);   // the sample or a recent file

private:
    QPushButton* sample_;
    QListWidget* recent_;
};

}  // namespace npuwb::ui
