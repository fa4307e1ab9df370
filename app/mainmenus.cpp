// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainmenus.h"

#include "appearance.h"
#include "glossarydialog.h"
#include "report/report.h"
#include "shareactions.h"

#include <QAction>
#include <QActionGroup>
#include <QCoreApplication>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <google/protobuf/stubs/common.h>

namespace tpuscope::app {

MainMenus::MainMenus(QMainWindow* window, ShareActions* share, const QList<QAction*>& dockToggles, QMenu* deviceMenu)
    : QObject(window)
{
    QStyle* style = window->style();
    QMenu* file = window->menuBar()->addMenu(tr("&File"));
    openFile = file->addAction(style->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open File…"));
    openFile->setShortcut(QKeySequence::Open);
    openFile->setStatusTip(tr("Open a profile"));
    openDirectory = file->addAction(style->standardIcon(QStyle::SP_DirOpenIcon), tr("Open &Directory…"));
    openDemo = file->addAction(tr("Open D&emo Profile"));
    recentMenu = file->addMenu(tr("Open &Recent"));
    openClipboard = file->addAction(tr("Open Share Text from &Clipboard"));
    file->addSeparator();
    m_shareMenu = file->addMenu(tr("&Share"));
    m_shareMenu->addAction(tr("Save Share &File…"), share, qOverload<>(&ShareActions::saveShareFile));
    m_shareMenu->addAction(tr("Copy for &Forum…"), share, qOverload<>(&ShareActions::copyForForum));
    m_shareMenu->addAction(tr("Share &Card…"), share, qOverload<>(&ShareActions::saveShareCard));
    m_shareMenu->addSeparator();
    m_shareMenu->addAction(
        tr("Copy Op Table as &Markdown"), share, [share] { share->copyOpTable(model::TableFormat::Markdown); });
    m_shareMenu->addAction(
        tr("Copy Op Table as CS&V"), share, [share] { share->copyOpTable(model::TableFormat::Csv); });
    m_shareMenu->addAction(tr("Export Op Table &PNG…"), share, qOverload<>(&ShareActions::exportOpTablePng));
    m_shareMenu->addSeparator();
    addRedactionMenu(share);
    m_shareMenu->setEnabled(false);
    m_compare = file->addAction(tr("Co&mpare with…"), this, [this, window] {
        const QString path = QFileDialog::getOpenFileName(window, compareDialogTitle(m_shownFile), {},
            tr("Profiles (*.pb *.pb.gz *.json *.json.gz *.trace *.gz *.tpuscope);;All files (*)"));
        if (!path.isEmpty())
            emit compareRequested(path);
    });
    m_compare->setEnabled(false);
    // The after run is often a TensorBoard log dir (a pod writes one file per host): its newest run.
    m_compareDirectory = file->addAction(tr("Compare with &Log Directory…"), this, [this, window] {
        const QString path = QFileDialog::getExistingDirectory(window, compareDialogTitle(m_shownFile));
        if (!path.isEmpty())
            emit compareRequested(path);
    });
    m_compareDirectory->setStatusTip(tr("Compare the open profile with the newest run of a TensorBoard log directory"));
    m_compareDirectory->setEnabled(false);
    file->addSeparator();
    close = file->addAction(tr("&Close"));
    close->setShortcut(QKeySequence::Close);
    close->setStatusTip(tr("Close the profile"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), window, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setStatusTip(tr("Quit"));

    QMenu* view = window->menuBar()->addMenu(tr("&View"));
    view->addActions(dockToggles);
    view->addMenu(deviceMenu);
    view->addSeparator();
    resetZoom = view->addAction(tr("Reset &Zoom"));
    resetZoom->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    resetZoom->setStatusTip(tr("Reset the timeline zoom"));
    zoomToBusyRegion = view->addAction(tr("Zoom to &Busy Region"));
    resetLayout = view->addAction(tr("Reset &Layout"));
    view->addSeparator();
    darkMode = view->addAction(tr("&Dark Mode"));
    darkMode->setCheckable(true);
    darkMode->setChecked(isDarkMode());
    darkMode->setStatusTip(tr("A dark palette instead of the system's (remembered)"));

    QMenu* help = window->menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Glossary"), window, [window] { widgets::GlossaryDialog(window).exec(); });
    // The window opens the list: it knows all of its keys (WindowShortcuts::entries).
    keyboardShortcuts = help->addAction(tr("&Keyboard Shortcuts"));
    keyboardShortcuts->setShortcuts({QKeySequence(Qt::Key_F1), QKeySequence(Qt::Key_Question)});
    keyboardShortcuts->setStatusTip(tr("This list of shortcuts"));
    help->addAction(
        tr("&About tpuscope"), window, [window] { QMessageBox::about(window, tr("About tpuscope"), aboutHtml()); });
}

void MainMenus::addRedactionMenu(ShareActions* share)
{
    // The one setting of every export, also offered in each export's dialog.
    redactionMenu = m_shareMenu->addMenu(tr("&Redaction"));
    auto* group = new QActionGroup(redactionMenu);
    const QStringList choices = ShareActions::redactionChoices();
    for (int level = 0; level < choices.size(); ++level) {
        QAction* action = redactionMenu->addAction(choices[level]);
        action->setCheckable(true);
        action->setActionGroup(group);
        connect(action, &QAction::triggered, share,
            [share, level] { share->setRedaction(ShareActions::redactionForChoice(level)); });
    }
    auto showSetting = [this, share] {
        redactionMenu->actions().at(ShareActions::choiceForRedaction(share->redaction()))->setChecked(true);
    };
    showSetting();
    connect(share, &ShareActions::redactionChanged, this, showSetting);
}

QString MainMenus::aboutHtml()
{
    constexpr int protobuf = GOOGLE_PROTOBUF_VERSION; // e.g. 3021012 for 3.21.12
    return tr("<b>tpuscope %1</b><p>A viewer for TPU (XLA) profiles: timeline, op breakdown, "
              "fusion details and utilization.</p>"
              "<p>Licence: GPL-3.0-or-later, the GNU General Public License, version 3 or later "
              "(<a href=\"https://www.gnu.org/licenses/gpl-3.0.html\">gnu.org/licenses/gpl-3.0.html</a>; "
              "the LICENSE file of the sources).</p>"
              "<p>Its numbers follow xprof's definitions: "
              "<a href=\"https://github.com/openxla/xprof\">github.com/openxla/xprof</a> "
              "(op_profile.proto, roofline_model.proto).</p>"
              "<p>Built with Qt %2 (running on Qt %3) and protobuf %4.%5.%6.</p>")
        .arg(QCoreApplication::applicationVersion(), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()))
        .arg(protobuf / 1000000)
        .arg(protobuf / 1000 % 1000)
        .arg(protobuf % 1000);
}

QString MainMenus::compareDialogTitle(const QString& shownFile)
{
    return tr("Compare %1 (before) with… — choose the after profile")
        .arg(shownFile.isEmpty() ? tr("the open profile") : shownFile);
}

void MainMenus::setProfileShown(bool shown, bool hasTpuOps, const QString& fileName)
{
    m_shownFile = fileName;
    close->setEnabled(shown);
    m_shareMenu->setEnabled(shown && hasTpuOps);
    m_compare->setEnabled(shown && hasTpuOps);
    m_compareDirectory->setEnabled(shown && hasTpuOps);
}

} // namespace tpuscope::app
