#pragma once
// Saved board connections (QSettings group "boards"): where a board is and how to reach it. Never a secret:
// passwords and passphrases only ever go to the OS keychain (Keychain.h), and only when the user asks.
#include <QList>
#include <QString>

#include "ssh/BoardOptions.h"

class QSettings;

namespace npuwb::ui {

struct BoardEntry {
    QString name;                     // what the user calls it ("rock5b")
    remote::BoardOptions connection;  // host, identity file (at most one here), known hosts, ssh config, cache, timeout

    friend bool operator==(const BoardEntry&, const BoardEntry&) = default;
};

/// The saved boards, in the user's order (an empty list when none were saved).
QList<BoardEntry> loadBoards(QSettings& settings);
void saveBoards(QSettings& settings, const QList<BoardEntry>& boards);

/// Empty when the entry can be saved, else what is wrong with it (for the connection dialog).
QString validateBoard(const BoardEntry& board, const QList<BoardEntry>& others);

}  // namespace npuwb::ui
