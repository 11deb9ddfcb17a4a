#pragma once
// The saved boards as a table (Name, Host, Identity, Status). Status is what the last test or probe found
// ("aarch64, agent 0.1.0", an error, ...); it lives only for the session and is never saved.
#include <QAbstractTableModel>

#include "models/BoardSettings.h"

namespace npuwb::ui {

class BoardListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, HostColumn, IdentityColumn, StatusColumn, ColumnCount };

    explicit BoardListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const QList<BoardEntry>& boards() const { return boards_; }
    void setBoards(const QList<BoardEntry>& boards);
    const BoardEntry& board(int row) const { return boards_.at(row); }
    /// -1 when there is no board of that name.
    int rowOf(const QString& name) const;
    /// Appends and returns the new row.
    int addBoard(const BoardEntry& board);
    void updateBoard(int row, const BoardEntry& board);
    void removeBoard(int row);
    /// ok=false shows the status as an error (red).
    void setStatus(int row, const QString& status, bool ok = true);
    QString status(int row) const;

signals:
    /// Added, edited or removed: time to save and refresh the run-target selector.
    void boardsChanged();

private:
    struct Status {
        QString text;
        bool ok = true;
    };
    QList<BoardEntry> boards_;
    QList<Status> status_;  // parallel to boards_
};

}  // namespace npuwb::ui
