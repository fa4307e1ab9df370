// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QHBoxLayout;
class QLabel;
class QMenu;
class QActionGroup;
class QSpinBox;
class QPushButton;

namespace tpuscope::qt {
class TraceSession;
}

namespace tpuscope::widgets {

/// The TPU generation and core count behind every utilization and per-core figure, made visible
/// and choosable: an info bar that appears when the file names no generation, its data contradict
/// the one in use, it does not record the cores (with a core count to set), or a choice was refused
/// because the file records otherwise. One button per generation the data fit, and a menu of every
/// generation. A choice goes to the session, which recomputes the analysis without reading the file
/// again.
class DeviceChooser : public QWidget
{
    Q_OBJECT
public:
    explicit DeviceChooser(QWidget* parent = nullptr);

    /// Follows the session's loads; choices are sent to it.
    void setSession(qt::TraceSession* session);
    /// "TPU Device" menu: "As recorded in the file" and every generation, the current one checked.
    QMenu* menu() const { return m_menu; }
    /// The bar's text (empty when hidden), for tests.
    QString message() const;

signals:
    /// The user chose a generation ("v6e"; empty = the file's own); the session has it already.
    void deviceChosen(const QString& generation);

private:
    void refresh();
    void choose(const QString& generation);

    qt::TraceSession* m_session = nullptr;
    QLabel* m_label = nullptr;
    QHBoxLayout* m_buttons = nullptr;
    QMenu* m_menu = nullptr;
    QActionGroup* m_group = nullptr;
    QSpinBox* m_cores = nullptr;
    QPushButton* m_applyCores = nullptr;
};

} // namespace tpuscope::widgets
