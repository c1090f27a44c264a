#include "viewer/analysis/TimelineAnalysis.h"

#include <QKeyEvent>
#include <QMainWindow>
#include <QMouseEvent>

#include "viewer/analysis/SelectionModel.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/CpuSamplingDock.h"
#include "viewer/analysis/FindBar.h"
#include "viewer/analysis/RowReveal.h"
#include "viewer/timeline/TimelineWidget.h"

namespace sl::viewer {

TimelineAnalysis::TimelineAnalysis(QMainWindow* window, TimelineWidget* timeline,
                                   std::shared_ptr<const Report> report)
    : QObject(window), m_timeline(timeline), m_report(std::move(report)) {
    m_docks = new AnalysisDocks(window, m_report);
    wire();
}

void TimelineAnalysis::wire() {
    ViewState& view = m_timeline->view();
    connect(&view, &ViewState::selectionChanged, this, &TimelineAnalysis::timeSelectionChanged);
    connect(m_timeline, &TimelineWidget::rowSelectionChanged, this, &TimelineAnalysis::timeSelectionChanged);
    connect(m_docks, &AnalysisDocks::rangeRequested, this,
            [this](qint64 t0, qint64 t1) { m_timeline->view().setRange(t0, t1, true); });
    SelectionModel* selection = m_docks->selection();
    // The timeline's click (its one hit test) selects through the tab's selection model.
    connect(m_timeline, &TimelineWidget::eventClicked, selection, &SelectionModel::selectEvent);
    connect(m_timeline, &TimelineWidget::emptyClicked, selection, &SelectionModel::clearSelectedEvent);
    connect(selection, &SelectionModel::highlightsChanged, this,
            [this, selection](const analysis::CorrelatedEvents& related) {
                m_selected = selection->selectedEvent();
                m_related = related;
                // However it was selected (click, events view, find, arrow keys), the
                // event's row and its launch partner's row come on screen.
                revealSelection();
                m_timeline->update();
            });
    // A double-click in the events view on the event already selected: its row may have been
    // scrolled away since the selection.
    connect(m_docks, &AnalysisDocks::eventActivated, this, [this](quint32 track, quint32 index) {
        if (m_selected == analysis::EventRef{track, index}) revealSelection();
    });
    FindBar* find = m_docks->findBar();
    connect(find, &FindBar::nameFilterChanged, m_timeline, &TimelineWidget::refreshFrame);
    m_timeline->setFrameHook([this, find](const TimeRange& range, DrawList& out) {
        if (m_timeline->scene() && !m_sampleMask.empty())
            dimSamplesOutside(*m_timeline->scene(), range, m_sampleMask, out);
        if (!m_timeline->scene() || find->filterMode() == FindBar::FilterMode::Off ||
            !find->matchMask())
            return;
        dimNonMatching(*m_timeline->scene(), range, *find->matchMask(),
                       find->filterMode() == FindBar::FilterMode::Hide, out);
    });
    m_timeline->setOverlayHook([this](const TimeRange& range, DrawList& out) {
        m_arrows.clear();
        if (m_timeline->scene())
            m_arrows = drawCorrelation(*m_timeline->scene(), range, m_selected, m_related, out);
    });
    if (CpuSamplingDock* sampling = m_docks->sampling()) {
        connect(sampling, &CpuSamplingDock::functionActivated, this, [this, sampling](quint32 f) {
            highlightSamplesThrough(sampling->tree()->functions()[f]);
            sampling->setHighlightText(QString::fromStdString(sampling->tree()->functionText(f)));
        });
        connect(sampling, &CpuSamplingDock::highlightCleared, this,
                [this] { highlightSamplesThrough({}); });
    }
    m_timeline->installEventFilter(this);
}

void TimelineAnalysis::revealSelection() {
    TimelineScene* scene = m_timeline->scene();
    if (!scene || !m_selected.valid()) return;
    // A row inside a collapsed group ("N more threads") is expanded first.
    if (scene->revealTrack(m_selected.track)) m_timeline->refreshFrame();
    const TimeRange range = m_timeline->view().range();
    const EventPlace target = placeEvent(*scene, range, m_selected);
    const analysis::EventRef other = launchPartner(m_selected, m_related);
    const EventPlace partner = placeEvent(*scene, range, other);
    if (auto scroll = scrollToReveal(*scene, target, partner.row ? &partner : nullptr)) {
        scene->setScroll(*scroll);
        m_timeline->refreshFrame();
    }
}

bool TimelineAnalysis::stepSelection(int direction) {
    if (!m_selected.valid() || m_selected.track >= m_report->tracks.size()) return false;
    // Events of a track are in start order: the neighbour by index is the next one in time.
    const int64_t next = static_cast<int64_t>(m_selected.index) + direction;
    if (next < 0 || next >= static_cast<int64_t>(m_report->tracks[m_selected.track].size()))
        return true;  // at the row's first or last event: the key is still taken
    jumpTo({m_selected.track, static_cast<uint32_t>(next)});
    return true;
}

void TimelineAnalysis::highlightSamplesThrough(const analysis::SampleFunction& fn) {
    if (fn.name.empty())
        m_sampleMask.clear();
    else
        m_sampleMask = analysis::stacksWithFunction(*m_report, fn);
    m_timeline->refreshFrame();
}

void TimelineAnalysis::timeSelectionChanged() {
    const ViewState& view = m_timeline->view();
    if (view.hasSelection())
        m_docks->setTimeSelection(view.selection().start, view.selection().end, m_timeline->selectedTracks());
    else  // rows alone still pick the CPU sampling dock's threads (over the whole report)
        m_docks->setTimeSelection(0, 0, m_timeline->selectedTracks());
}

bool TimelineAnalysis::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_timeline) {
        if (event->type() == QEvent::KeyPress) {
            // Left / Right step through the selected event's row (nsys); without a selected
            // event the timeline keeps the keys.
            auto* ke = static_cast<QKeyEvent*>(event);
            const auto mods = ke->modifiers() & ~Qt::KeypadModifier;
            if (mods == Qt::NoModifier &&
                (ke->key() == Qt::Key_Left || ke->key() == Qt::Key_Right) &&
                stepSelection(ke->key() == Qt::Key_Right ? 1 : -1))
                return true;
        } else if (event->type() == QEvent::MouseButtonPress) {
            auto* me = static_cast<QMouseEvent*>(event);
            const QPointF pos = me->position();
            // Edge arrows take the click before the timeline starts a selection drag.
            m_pressTaken = false;
            for (const EdgeArrow& a : m_arrows)
                if (me->button() == Qt::LeftButton &&
                    a.contains(static_cast<float>(pos.x()), static_cast<float>(pos.y()))) {
                    m_pressTaken = true;
                    jumpTo(a.target);
                    return true;
                }
        } else if (event->type() == QEvent::MouseButtonRelease && m_pressTaken) {
            m_pressTaken = false;  // the release of an arrow click is not a click on an event
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

void TimelineAnalysis::jumpTo(analysis::EventRef e) {
    TimelineScene* scene = m_timeline->scene();
    if (!scene || !e.valid() || e.track >= m_report->tracks.size()) return;
    if (scene->revealTrack(e.track)) m_timeline->refreshFrame();
    const Track& t = m_report->tracks[e.track];
    const int64_t s = t.start[e.index], end = t.endAt(e.index);
    const TimeRange r = m_timeline->view().range();
    if (end - s > r.span() * 9 / 10 || s < r.start || end > r.end) {
        const int64_t span = std::max<int64_t>(r.span(), (end - s) * 5 / 4 + 1);
        const int64_t mid = s + (end - s) / 2;
        m_timeline->view().setRange(mid - span / 2, mid - span / 2 + span, true);
    }
    m_docks->selectEvent(e.track, e.index);  // reveals its row (highlightsChanged)
    revealSelection();                       // also when it was selected already
    m_timeline->update();
}

}  // namespace sl::viewer
