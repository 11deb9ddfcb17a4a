// The Graph view's repeated blocks: which are collapsed, the toggles (double-click, context menu, Collapse Blocks),
// a block's box as the current item, and the outlines of expanded blocks.
#include <QAction>
#include <QGraphicsScene>
#include <QMenu>
#include <QSignalBlocker>

#include <algorithm>
#include <utility>

#include "core/Workbench.h"
#include "jobs/GraphLayoutJob.h"
#include "models/LayerSelection.h"
#include "views/graph/GraphItems.h"
#include "views/graph/GraphView.h"
#include "views/graph/NodeProperties.h"

namespace npuwb::ui {

GraphNodeItem* GraphView::drawnItem(int index) const {
    if (GraphNodeItem* item = nodeItem(index)) return item;
    if (index < 0 || size_t(index) >= data_.nodes.size()) return nullptr;
    return blockItem(blocks_.of(index));  // null unless its block is drawn collapsed
}

GraphBlockItem* GraphView::blockItem(int block) const {
    return block >= 0 && size_t(block) < blockItems_.size() ? blockItems_[size_t(block)] : nullptr;
}

GraphBlockFrameItem* GraphView::blockFrame(int block) const {
    return block >= 0 && size_t(block) < blockFrames_.size() ? blockFrames_[size_t(block)] : nullptr;
}

int GraphView::drawnBoxCount() const {
    auto drawn = [](const auto& items) {
        return int(std::count_if(items.begin(), items.end(), [](const auto* item) { return item != nullptr; }));
    };
    return drawn(items_) + drawn(blockItems_);
}

bool GraphView::isBlockCollapsed(int block) const {
    return block >= 0 && size_t(block) < collapsed_.size() && collapsed_[size_t(block)];
}

void GraphView::setBlockCollapsed(int block, bool collapsed) {
    if (block < 0 || size_t(block) >= collapsed_.size() || collapsed_[size_t(block)] == collapsed) return;
    collapsed_[size_t(block)] = collapsed;
    relayoutForBlocks(-1, block);
}

void GraphView::setAllBlocksCollapsed(bool collapsed) {
    if (blocks_.empty() || std::all_of(collapsed_.begin(), collapsed_.end(), [&](bool c) { return c == collapsed; })) {
        updateCollapseAction();
        return;
    }
    std::fill(collapsed_.begin(), collapsed_.end(), collapsed);
    // Keep the current node (or block) in view across the new layout.
    int focus = current_;
    if (focus < 0 && currentBlock_ >= 0) focus = blocks_.blocks[size_t(currentBlock_)].members.front();
    relayoutForBlocks(focus, -1);
}

void GraphView::relayoutForBlocks(int focusNode, int focusBlock) {
    updateCollapseAction();
    if (currentBlock_ >= 0 && !isBlockCollapsed(currentBlock_)) {
        // The box goes away: its first node becomes current.
        current_ = blocks_.blocks[size_t(currentBlock_)].members.front();
        currentBlock_ = -1;
    }
    focusNode_ = focusNode;
    focusBlock_ = focusBlock;
    layoutPending_ = true;
    if (isVisible()) startLayout();
}

void GraphView::showFocus() {
    QRectF box;
    const int block = std::exchange(focusBlock_, -1);
    if (GraphNodeItem* item = blockItem(block))
        box = item->sceneBoundingRect();
    else if (GraphBlockFrameItem* frame = blockFrame(block))
        box = frame->sceneBoundingRect();
    else if (block >= 0 && size_t(block) < blocks_.blocks.size())
        for (int node : blocks_.blocks[size_t(block)].members)
            if (GraphNodeItem* item = nodeItem(node)) box = box.united(item->sceneBoundingRect());
    const int node = std::exchange(focusNode_, -1);
    if (GraphNodeItem* item = box.isNull() ? drawnItem(node) : nullptr) box = item->sceneBoundingRect();
    if (box.isNull()) return;
    // A block taller than the canvas shows from its top, the box before it in view.
    const double half = canvas_->viewport()->height() / 2.0 / canvas_->zoom();
    canvas_->centerOn(box.center().x(), box.height() > 2 * half - 100 ? box.top() - 80 + half : box.center().y());
    canvas_->viewportMoved();
}

QString GraphView::shownName(int node) const {
    const QString& name = data_.nodes[size_t(node)].name;
    const int block = blocks_.of(node);
    if (folded_.blockUnits == 0 || block < 0 || isBlockCollapsed(block)) return name;
    const QString& prefix = blocks_.blocks[size_t(block)].prefix;
    return name.startsWith(prefix + QLatin1Char('/')) ? name.mid(prefix.size() + 1) : name;
}

void GraphView::updateCollapseAction() {
    const QSignalBlocker blocker(collapseAction_);
    collapseAction_->setEnabled(!blocks_.empty());
    collapseAction_->setChecked(std::any_of(collapsed_.begin(), collapsed_.end(), [](bool c) { return c; }));
    collapseAction_->setText(collapseAction_->isChecked() ? tr("Expand Blocks") : tr("Collapse Blocks"));
}

QSet<QString> GraphView::collapsedPrefixes() const {
    QSet<QString> prefixes;
    for (size_t b = 0; b < blocks_.blocks.size() && b < collapsed_.size(); ++b)
        if (collapsed_[b]) prefixes.insert(blocks_.blocks[b].prefix);
    return prefixes;
}

void GraphView::applyBlockState(bool fresh, const QSet<QString>& collapsedBefore) {
    blocks_ = data_.model ? findBlocks(data_) : GraphBlocks();
    collapsed_.assign(blocks_.blocks.size(), false);
    const bool big = data_.opNodes > kCollapseBlocksNodes;
    for (size_t b = 0; b < blocks_.blocks.size(); ++b)
        collapsed_[b] = fresh ? big : collapsedBefore.contains(blocks_.blocks[b].prefix);
    folded_ = foldGraph(data_, blocks_, collapsed_);
    updateCollapseAction();
}

void GraphView::onBlockClicked(int block) {
    if (block < 0 || size_t(block) >= blocks_.blocks.size()) return;
    clearCurrent();
    siblingsOf_ = -1;
    currentBlock_ = block;
    if (GraphNodeItem* item = blockItem(block)) {
        item->setCurrent(true);
        canvas_->ensureVisible(item, 40, 40);
        canvas_->viewportMoved();
    }
    refreshProperties();
    // The whole block is the selection: the other views show its layers.
    QStringList names;
    for (int node : blocks_.blocks[size_t(block)].members)
        if (data_.nodes[size_t(node)].kind == GraphNodeInfo::Kind::Op) names << data_.nodes[size_t(node)].name;
    publishing_ = true;
    workbench().selection()->selectNodes(names);
    publishing_ = false;
}

void GraphView::onBlockMenu(int node, int block, const QPoint& globalPos) {
    if (block < 0) block = blocks_.of(node);
    if (blocks_.empty()) return;
    auto* menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    if (block >= 0) {
        const QString title = blocks_.blocks[size_t(block)].title;
        const bool collapsed = isBlockCollapsed(block);
        QAction* one =
            menu->addAction(collapsed ? tr("Expand Block %1").arg(title) : tr("Collapse Block %1").arg(title));
        connect(one, &QAction::triggered, this, [this, block, collapsed] { setBlockCollapsed(block, !collapsed); });
        menu->addSeparator();
    }
    connect(menu->addAction(tr("Collapse All Blocks")), &QAction::triggered, this,
            [this] { setAllBlocksCollapsed(true); });
    connect(menu->addAction(tr("Expand All Blocks")), &QAction::triggered, this,
            [this] { setAllBlocksCollapsed(false); });
    menu->popup(globalPos);
}

void GraphView::drawBlockFrames() {
    for (GraphBlockFrameItem* frame : blockFrames_) delete frame;
    blockFrames_.assign(blocks_.blocks.size(), nullptr);
    // Only while some block is collapsed: a flat graph keeps its plain look.
    if (folded_.blockUnits == 0) return;
    for (size_t b = 0; b < blocks_.blocks.size(); ++b) {
        if (isBlockCollapsed(int(b))) continue;
        QRectF around;
        for (int node : blocks_.blocks[b].members)
            if (GraphNodeItem* item = nodeItem(node)) around = around.united(item->sceneBoundingRect());
        if (around.isNull()) continue;
        blockFrames_[b] = new GraphBlockFrameItem(int(b), around, blocks_.blocks[b].prefix, font());
        scene_->addItem(blockFrames_[b]);
    }
}

}  // namespace npuwb::ui
