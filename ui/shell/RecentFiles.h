#pragma once
// The "Open Recent" list, kept in QSettings and mirrored into a menu.
#include <QObject>
#include <QStringList>

class QMenu;

namespace npuwb::ui {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxEntries = 10;

    explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

    QStringList files() const;
    /// Moves (or adds) the path to the top.
    void add(const QString& path);
    void remove(const QString& path);

signals:
    void fileChosen(const QString& path);

private:
    void store(const QStringList& files);
    void rebuildMenu();

    QMenu* menu_;
};

}  // namespace npuwb::ui
