/// The script that makes a report page's table sortable by clicking a header (`host matrix
/// --format html`, `host diff --users … --format html`): each `<th data-col="N">` sorts its
/// column, numerically when it has `data-num="1"`, the direction flipping on each click.
/// Inline, so the page stays self-contained; `tableID` is one of the host's own literals.
public enum SortableTable {
    public static func script(tableID: String) -> String {
        """
        <script>
        (function(){var t=document.getElementById("\(tableID)"),dir={};
        t.tHead.addEventListener("click",function(e){var th=e.target.closest("th");if(!th)return;
        var c=+th.dataset.col,num=th.dataset.num==="1",b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows);
        dir[c]=-(dir[c]||-1);var d=dir[c];
        rs.sort(function(x,y){var a=x.cells[c].textContent,z=y.cells[c].textContent;
        return d*(num?(parseFloat(a)-parseFloat(z)):a.localeCompare(z));});
        rs.forEach(function(r){b.appendChild(r);});});})();
        </script>
        """
    }
}
