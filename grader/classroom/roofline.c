/* roofline.c: an inline SVG roofline chart (no script, no external files).
 *
 * x: arithmetic intensity, FLOP per byte moved (log scale); y: achieved GFLOP/s (log).
 * The roofs are this GPU's measured ones: the copy bandwidth (the slanted line,
 * GFLOP/s = GB/s x FLOP/byte) and, when measured, cuBLAS's fp16 Tensor Core rate (flat).
 * A point under the slanted roof at the left is memory-bound: its distance to the roof
 * is the bandwidth left on the table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "grader/classroom.h"
#include "strbuf.h"

#define W 680.0
#define H 420.0
#define ML 70.0
#define MR 20.0
#define MT 30.0
#define MB 50.0

static void esc(cl_strbuf *sb, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': cl_sb_append(sb, "&lt;"); break;
        case '>': cl_sb_append(sb, "&gt;"); break;
        case '&': cl_sb_append(sb, "&amp;"); break;
        case '"': cl_sb_append(sb, "&quot;"); break;
        case '\'': cl_sb_append(sb, "&#39;"); break;
        default: cl_sb_appendn(sb, s, 1);
        }
    }
}

static void fmt_pow(char *buf, size_t n, int e)
{
    if (e >= -2 && e <= 3)
        snprintf(buf, n, "%g", pow(10, e));
    else
        snprintf(buf, n, "1e%d", e);
}

typedef struct axes {
    double lx0, lx1, ly0, ly1; /* log10 ranges */
} axes;

static double px(const axes *a, double x) { return ML + (log10(x) - a->lx0) / (a->lx1 - a->lx0) * (W - ML - MR); }
static double py(const axes *a, double y) { return H - MB - (log10(y) - a->ly0) / (a->ly1 - a->ly0) * (H - MT - MB); }

/* 1 for a point that can be placed (positive FLOPs, bytes and time); its intensity and rate. */
static int placed(const cl_roof_point *p, double *ai, double *gflops)
{
    if (p->flops <= 0 || p->bytes <= 0 || p->seconds <= 0)
        return 0;
    *ai = p->flops / p->bytes;
    *gflops = p->flops / p->seconds / 1e9;
    return 1;
}

/* Decades that hold every point and the roofs' interesting part; 0 when nothing can be placed. */
static int fit_axes(const cl_roof_point *pts, int n, double copy_gbps, double peak, axes *a)
{
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, ai, g;
    int plotted = 0;
    for (int i = 0; i < n; i++) {
        if (!placed(&pts[i], &ai, &g))
            continue;
        xmin = fmin(xmin, ai);
        xmax = fmax(xmax, ai);
        ymin = fmin(ymin, g);
        ymax = fmax(ymax, g);
        plotted++;
    }
    if (!plotted)
        return 0;
    xmin /= 8;
    xmax *= 8;
    if (copy_gbps > 0 && peak > 0)
        xmax = fmax(xmax, peak / copy_gbps * 4);
    double roof_hi = copy_gbps > 0 ? copy_gbps * xmax : 0;
    if (peak > 0 && roof_hi > peak)
        roof_hi = peak;
    ymax = fmax(ymax, roof_hi) * 3;
    ymin = fmin(ymin, copy_gbps > 0 ? copy_gbps * xmin : ymin) / 3;
    *a = (axes){floor(log10(xmin)), ceil(log10(xmax)), floor(log10(ymin)), ceil(log10(ymax))};
    if (a->lx1 <= a->lx0) a->lx1 = a->lx0 + 1;
    if (a->ly1 <= a->ly0) a->ly1 = a->ly0 + 1;
    return 1;
}

/* Grid and labels, one line per decade, and the axis titles. */
static void draw_grid(cl_strbuf *sb, const axes *a)
{
    char buf[64];
    for (int e = (int)a->lx0; e <= (int)a->lx1; e++) {
        double x = px(a, pow(10, e));
        fmt_pow(buf, sizeof buf, e);
        cl_sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\" stroke=\"#eaeef2\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\" font-size=\"11\" "
                         "fill=\"#57606a\">%s</text>\n",
                     x, MT, x, H - MB, x, H - MB + 16, buf);
    }
    for (int e = (int)a->ly0; e <= (int)a->ly1; e++) {
        double y = py(a, pow(10, e));
        fmt_pow(buf, sizeof buf, e);
        cl_sb_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\" stroke=\"#eaeef2\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\" font-size=\"11\" "
                         "fill=\"#57606a\">%s</text>\n",
                     ML, y, W - MR, y, ML - 6, y + 4, buf);
    }
    cl_sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">arithmetic intensity "
                     "(FLOP/byte)</text>\n", (ML + W - MR) / 2, H - 12);
    cl_sb_printf(sb, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\" transform=\"rotate(-90 16 %.1f)\">"
                     "GFLOP/s</text>\n", (MT + H - MB) / 2, (MT + H - MB) / 2);
}

/* The slanted memory roof, clipped to the plot, and the flat Tensor Core roof after the ridge. */
static void draw_roofs(cl_strbuf *sb, const axes *a, double copy_gbps, double peak, double fp16_tflops)
{
    if (copy_gbps <= 0) {
        cl_sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"note\">no ceilings measured on this machine</text>\n",
                     ML + 8, MT + 14);
        return;
    }
    double x0 = pow(10, a->lx0), x1 = pow(10, a->lx1);
    double ridge = peak > 0 ? peak / copy_gbps : x1;
    double xe = fmin(ridge, x1);
    double y0 = copy_gbps * x0;
    /* clip the start of the slanted roof to the plot's bottom */
    if (y0 < pow(10, a->ly0)) {
        x0 = pow(10, a->ly0) / copy_gbps;
        y0 = pow(10, a->ly0);
    }
    double ye = copy_gbps * xe;
    if (ye > pow(10, a->ly1)) {
        ye = pow(10, a->ly1);
        xe = ye / copy_gbps;
    }
    cl_sb_printf(sb, "<polyline class=\"roof\" fill=\"none\" stroke=\"#cf222e\" stroke-width=\"2\" points=\"%.1f,%.1f %.1f,%.1f", px(a, x0), py(a, y0), px(a, xe),
                 py(a, ye));
    if (peak > 0 && ridge < x1)
        cl_sb_printf(sb, " %.1f,%.1f", px(a, x1), py(a, peak));
    cl_sb_append(sb, "\"/>\n");
    cl_sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" class=\"rooflabel\" font-size=\"11\" fill=\"#cf222e\">memory roof: copy %.0f GB/s</text>\n",
                 px(a, x0) + 6, py(a, y0) - 8, copy_gbps);
    if (peak > 0 && ridge < x1)
        cl_sb_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"rooflabel\" font-size=\"11\" fill=\"#cf222e\">fp16 Tensor Core "
                         "(cuBLAS) %.0f TFLOP/s</text>\n", W - MR - 4, py(a, peak) - 6, fp16_tflops);
}

/* One circle per point, linked where it has a page, its numbers in the tooltip. */
static void draw_points(cl_strbuf *sb, const axes *a, const cl_roof_point *pts, int n)
{
    for (int i = 0; i < n; i++) {
        const cl_roof_point *p = &pts[i];
        double ai, g;
        if (!placed(p, &ai, &g))
            continue;
        if (p->href) {
            cl_sb_append(sb, "<a href=\"");
            esc(sb, p->href);
            cl_sb_append(sb, "\">");
        }
        cl_sb_printf(sb, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" fill-opacity=\"0.75\">"
                         "<title>", p->highlight ? " hi" : "", px(a, ai), py(a, g), p->highlight ? 6 : 4,
                     p->highlight ? "#bf3989" : "#0969da");
        esc(sb, p->label);
        cl_sb_printf(sb, ": %.3g FLOP/byte, %.4g GFLOP/s (%.4g GB/s)</title></circle>", ai, g,
                     p->bytes / p->seconds / 1e9);
        if (p->href)
            cl_sb_append(sb, "</a>");
        cl_sb_append(sb, "\n");
    }
}

void cl_roofline_svg(cl_strbuf *sb, const cl_roof_point *pts, int n, double copy_gbps, double fp16_tflops,
                     const char *title)
{
    double peak = fp16_tflops * 1e3; /* GFLOP/s */
    cl_sb_append(sb, "<svg id=\"roofline\" class=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 680 420\" "
                     "width=\"680\" height=\"420\" role=\"img\" aria-label=\"roofline chart\">\n");
    cl_sb_append(sb, "<title>");
    esc(sb, title);
    cl_sb_append(sb, "</title>\n<rect x=\"0\" y=\"0\" width=\"680\" height=\"420\" fill=\"#fff\"/>\n");
    axes a;
    if (!fit_axes(pts, n, copy_gbps, peak, &a)) {
        cl_sb_append(sb, "<text x=\"340\" y=\"210\" text-anchor=\"middle\" class=\"note\">no timed runs with counted "
                         "FLOPs to plot</text>\n</svg>\n");
        return;
    }
    draw_grid(sb, &a);
    draw_roofs(sb, &a, copy_gbps, peak, fp16_tflops);
    draw_points(sb, &a, pts, n);
    cl_sb_append(sb, "</svg>\n");
}
