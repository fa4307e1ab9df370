// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/report.h"
#include "share/forumpost.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QImage;
class QWidget;

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::widgets {
class OpTableView;
}

namespace tpuscope::app {

/// File → Share: the share file (with redaction), Copy for Forum, the share card and the op
/// table's copies and PNG. Reads the session's profile and the op table as shown, writes every
/// file through the core's atomic-save helper, and says what each action did: `status` gets a
/// line for the status bar, `failure` a message for the window's message bar.
class ShareActions : public QObject
{
    Q_OBJECT
public:
    using Notify = std::function<void(const QString& text)>;

    /// `persist`: the redaction setting is read from and kept in QSettings ("share/redaction").
    ShareActions(qt::TraceSession* session, widgets::OpTableView* opTable, QWidget* dialogParent, Notify status,
        Notify failure, bool persist, QObject* parent = nullptr);

    /// The one redaction setting every export uses (share file, forum post, card, op table copies
    /// and PNG); model::defaultShareRedaction() until the user picks another.
    const model::ShareRedaction& redaction() const { return m_redaction; }
    void setRedaction(const model::ShareRedaction& redaction);
    /// "paths redacted" / "not redacted": what an export's status line and the PNG header say.
    static QString redactionSummary(const model::ShareRedaction& redaction);
    /// The file name an export proposes: the profile's name without its extensions and `suffix`
    /// ("run.xplane.pb" → "run.tpuscope" for ".tpuscope", "run-ops.png" for "-ops.png").
    QString suggestedFileName(const QString& suffix) const;

    /// Asks for the redaction and the file name, then saveShareFile(path, redaction).
    void saveShareFile();
    /// Writes the share file with `redaction` to `path` once the session has built it (off the GUI
    /// thread); shareFinished follows. False when no analysis is shown (nothing is started).
    bool saveShareFile(const QString& path, const model::ShareRedaction& redaction);
    /// Asks for the redaction (source paths by default) and whether to add the share block, then
    /// copies the post.
    void copyForForum();
    /// The same without asking: the session builds the post off the GUI thread, then it goes to the
    /// clipboard and shareFinished follows. False when no analysis is shown (nothing is started).
    bool copyForForum(const model::ForumPostOptions& options);
    void saveShareCard();
    bool saveShareCard(const QString& path);
    /// Asks for a file name, then exportOpTablePng(path).
    void exportOpTablePng();
    bool exportOpTablePng(const QString& path);
    /// The op table as shown (grouping, filter, sort, visible columns) on the clipboard.
    void copyOpTable(model::TableFormat format);

    /// The op table as shown, each cell through the redaction setting (the model's ExportRedactor).
    model::Table redactedOpTable(std::vector<size_t>* groupRows = nullptr) const;
    /// The header lines of the op table PNG: title and file, device, grouping, filter, redaction, date.
    QStringList tableImageHeader() const;
    /// The redaction levels offered for every export, mildest first.
    static QStringList redactionChoices();
    static model::ShareRedaction redactionForChoice(int index);
    /// The level of redactionChoices() that `redaction` is (the nearest stricter one).
    static int choiceForRedaction(const model::ShareRedaction& redaction);

signals:
    /// The redaction setting changed (a dialog or File → Share → Redaction).
    void redactionChanged();

    /// A share file was written or a forum post copied (`ok`), or it failed with a message on the
    /// failure line (not `ok`). A request superseded by a newer one, or by another profile, ends
    /// without this signal.
    void shareFinished(bool ok);

private:
    /// The dialog of an export that writes a file: `intro`, the redaction setting (which the user
    /// may change here, for every export) and OK. False when cancelled.
    bool confirmRedaction(const QString& title, const QString& intro);
    /// A PNG written atomically, never over the open profile; false with a failure message.
    bool savePng(const QImage& image, const QString& path);
    void copied(const QString& text, const QString& what);

    qt::TraceSession* m_session;
    widgets::OpTableView* m_opTable;
    QWidget* m_dialogParent;
    Notify m_status;
    Notify m_failure;
    bool m_persist;
    model::ShareRedaction m_redaction = model::defaultShareRedaction();
};

/// "3.1 KB" for a clipboard or file size, with the shared byte formatter.
QString sizeText(qsizetype bytes);

} // namespace tpuscope::app
