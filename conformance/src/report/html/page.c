/* page.c — the page shell: one self-contained document (inline CSS, inline
 * SVG, no script, no font, no request of any kind; a Content-Security-Policy
 * that forbids every load but inline styles and data: images, so even a
 * defect in escaping could not fetch or run anything), then the sections in
 * reading order. */
#include <string.h>

#include "report/html/report.h"
#include "vectorset/vectors_load.h"

/* Contrast: every text colour on its background is at least 4.5:1 (WCAG
 * AA); state is never told by colour alone (words in every cell, a text
 * table behind every plot). Print: no backgrounds needed to read it, every
 * <details> open, rows kept whole. */
static void css(hw *w)
{
    HW(w,
       ":root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg2:#f6f8fa;--pass:#116329;--pass-bg:#dafbe1;"
       "--fail:#a40e26;--fail-bg:#ffebe9;--xf:#3d4a5c;--xf-bg:#e7ecf2;--warn:#7d4e00;--warn-bg:#fff8c5;"
       "--link:#0550ae}\n"
       "*{box-sizing:border-box}\n"
       "html{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\",Arial,\"Liberation Sans\","
       "sans-serif;font-size:14px;line-height:1.45;color:var(--fg);background:#fff}\n"
       "body{margin:0}\n"
       "header.top{padding:20px 28px 14px;border-bottom:1px solid var(--line);background:var(--bg2)}\n"
       "main{padding:6px 28px 28px;max-width:1500px}\n"
       "h1{font-size:22px;margin:0 0 2px;font-weight:650;letter-spacing:-.01em}\n"
       "h2{font-size:17px;margin:26px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}\n"
       "h3{font-size:15px;margin:18px 0 6px}\n"
       "h4{font-size:13px;margin:14px 0 4px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}\n"
       "p{margin:6px 0;max-width:95ch}\n"
       "a{color:var(--link)}\n"
       ".sub{color:var(--muted);margin:0 0 10px}\n"
       "code,.mono,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,\"DejaVu Sans Mono\","
       "\"Liberation Mono\",monospace;font-size:12.5px}\n"
       "pre{background:var(--bg2);border:1px solid var(--line);border-radius:4px;padding:8px 10px;"
       "white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0;max-height:40em;overflow:auto}\n"
       ".banner{display:inline-block;margin:6px 0 0;padding:6px 12px;border-radius:4px;font-weight:600;"
       "border:1px solid}\n"
       ".banner.ok{color:var(--pass);background:var(--pass-bg);border-color:#4ac26b}\n"
       ".banner.bad{color:var(--fail);background:var(--fail-bg);border-color:#ff8182}\n"
       ".banner.none{color:var(--warn);background:var(--warn-bg);border-color:#d4a72c}\n"
       );
    HW(w,
       "dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 16px;margin:10px 0}\n"
       "dl.facts dt{color:var(--muted);font-weight:600}\n"
       "dl.facts dd{margin:0;overflow-wrap:anywhere}\n"
       "table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}\n"
       "caption{text-align:left;color:var(--muted);padding:0 0 4px;caption-side:top}\n"
       "th,td{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top}\n"
       "thead th{background:var(--bg2);font-weight:600;white-space:nowrap}\n"
       "tbody th{font-weight:600}th[scope=row]{max-width:18em;overflow-wrap:anywhere}\n"
       "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
       "td.dg{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,\"DejaVu Sans Mono\",monospace;"
       "font-size:12px;white-space:nowrap}\n"
       "td.dg.diff{color:var(--fail);background:var(--fail-bg);font-weight:600}\n"
       "td.dg.none{color:var(--muted)}\n"
       "tr.agree th,tr.agree td{background:var(--bg2);font-weight:600}\n"
       "tr.xfail th,tr.xfail td{background:#f3f5f8}\n"
       ".wrap{overflow-x:auto;max-width:100%}\n"
       "td.nowrap{white-space:nowrap}.small{font-size:12px}\n"
       "table.matrix{font-size:12px}table.matrix td,table.matrix th{padding:3px 5px}\n"
       "td.runs{max-width:20em;overflow-wrap:anywhere}td.runs .small{display:inline-block}\n"
       "table.cases th[scope=row]{white-space:nowrap}\n"
       ".v{display:inline-block;padding:0 6px;border-radius:3px;font-weight:650;font-size:12px;"
       "white-space:nowrap;border:1px solid transparent}\n"
       ".v.pass{color:var(--pass);background:var(--pass-bg);border-color:#4ac26b}\n"
       ".v.fail{color:var(--fail);background:var(--fail-bg);border-color:#ff8182}\n"
       ".v.xfail{color:var(--xf);background:var(--xf-bg);border-color:#8c959f}\n"
       ".v.other{color:var(--warn);background:var(--warn-bg);border-color:#d4a72c}\n"
       ".ctl{font-size:11px;color:var(--xf);font-weight:600}\n"
       ".muted{color:var(--muted)}\n"
       ".cut{color:var(--warn);font-style:italic;font-weight:600}\n"
       "details.host{border:1px solid var(--line);border-radius:6px;margin:8px 0;background:#fff}\n"
       "details.host>summary{cursor:pointer;padding:7px 12px;background:var(--bg2);border-radius:6px;"
       "list-style-position:inside}\n"
       "details.host[open]>summary{border-bottom:1px solid var(--line);border-radius:6px 6px 0 0}\n"
       "details.host>div{padding:4px 14px 12px}\n"
       "summary .hn{font-weight:650;margin-right:8px}\n");
    HW(w,
       "summary .meta{color:var(--muted);margin-left:8px}\n"
       "details.data>summary{cursor:pointer;color:var(--link);margin:2px 0}\n"
       ".grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:4px 28px}\n"
       "figure.plot{margin:8px 0 14px}\n"
       "figure.plot svg{max-width:100%;height:auto;display:block}\n"
       "figure.plot figcaption{font-size:12.5px}\n"
       "svg .frame{fill:none;stroke:#8c959f}\n"
       "svg .grid{stroke:#e1e4e8;stroke-width:1}\n"
       "svg .tick{font-size:11px;fill:#57606a}\n"
       "svg .label{font-size:12px;fill:#1b1f24}\n"
       "svg .rowlabel{font-size:12px;fill:#1b1f24}\n"
       "svg .series{fill:none;stroke-width:1.6}\n"
       "svg .dashed{stroke-dasharray:3 4;stroke-width:1.3}\n"
       ".s0{stroke:#0072b2;background:#0072b2}.s1{stroke:#d55e00;background:#d55e00}"
       ".s2{stroke:#009e73;background:#009e73}.s3{stroke:#cc79a7;background:#cc79a7}"
       ".s4{stroke:#e69f00;background:#e69f00}.s5{stroke:#56b4e9;background:#56b4e9}"
       ".s6{stroke:#1b1f24;background:#1b1f24}.s7{stroke:#8c959f;background:#8c959f}\n"
       "rect.st-pass,.swatch.st-pass{fill:#2da44e;background:#2da44e}"
       "rect.st-fail,.swatch.st-fail{fill:#cf222e;background:#cf222e}"
       "rect.st-error,.swatch.st-error{fill:#9a6700;background:#9a6700}"
       "rect.st-skip,.swatch.st-skip{fill:#afb8c1;background:#afb8c1}"
       "rect.st-none,.swatch.st-none{fill:#eaeef2;background:#eaeef2}\n"
       "ul.legend{list-style:none;padding:0;margin:2px 0;display:flex;flex-wrap:wrap;gap:2px 16px}\n"
       ".swatch{display:inline-block;width:14px;height:10px;margin-right:5px;vertical-align:baseline;"
       "border:1px solid #8c959f}\n"
       ".swatch.dashed{background:repeating-linear-gradient(90deg,#1b1f24 0 5px,#fff 5px 8px)}\n"
       "footer{padding:10px 28px 24px;color:var(--muted);border-top:1px solid var(--line);font-size:12.5px}\n"
       "@media print{html{font-size:11px}header.top{background:none}main{max-width:none;padding:0 8px}"
       "details.host,details.data{break-inside:auto}details>summary{list-style:none}"
       "details::details-content{content-visibility:visible;display:contents}"
       "details:not([open])>*:not(summary){display:block}"
       "tr,figure{break-inside:avoid}h2,h3{break-after:avoid}pre{max-height:none;overflow:visible}"
       ".wrap{overflow:visible}.grid2{display:block}a{color:inherit;text-decoration:none}"
       "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n");
}

static void page_title(hw *w, const rp_page *p)
{
    const char *v = NULL;
    for (size_t i = 0; i < p->nr && !v; i++)
        v = rv_str(p->rx[i].receipt, RF_VECTORS_VECTOR_VERSION);
    if (!v && p->have_vectors)
        v = ((const vector_set *)p->vectors)->vector_version;
    HW(w, "isotrain conformance");
    if (v) {
        HW(w, " \xe2\x80\x94 vector set ");
        hw_text_cap(w, v, HW_CAP_NAME);
    }
}

void rp_render(hw *w, const rp_page *p)
{
    HW(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:; base-uri 'none'; form-action 'none'\">\n"
          "<meta name=\"referrer\" content=\"no-referrer\">\n"
          "<meta name=\"generator\" content=\"isotrain-conform report\">\n<title>");
    page_title(w, p);
    HW(w, "</title>\n<style>\n");
    css(w);
    HW(w, "</style>\n</head>\n<body>\n");
    sec_header(w, p);
    HW(w, "<main>\n");
    sec_about(w, p);
    sec_matrix(w, p);
    sec_plots(w, p);
    sec_divergence(w, p);
    sec_hosts(w, p);
    sec_refused(w, p);
    sec_inputs(w, p);
    HW(w, "</main>\n<footer><p>Written by <code>isotrain-conform report</code> from the receipts listed under "
          "<a href=\"#inputs\">Inputs</a>; the same receipts give the same page, byte for byte. Every result "
          "above comes from a receipt that <code>isotrain-conform verify</code> accepts, judged as "
          "<code>isotrain-conform matrix</code> judges it.</p></footer>\n</body>\n</html>\n");
}
