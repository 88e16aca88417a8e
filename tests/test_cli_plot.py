"""Band plots: the title is inside the figure however many parameters it names."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from probperf.plot import plot_band  # noqa: E402
from probperf.predict import Predictive  # noqa: E402

CUTOFFS = {"quick_cutoff": 512, "merge_cutoff": 512, "insertion_cutoff": 20, "block_size": 1000}


class PowerLaw:
    """A fitted model stand-in: time = 1e-8 n / p, with the sort's constant cut-offs."""

    train_ranges_ = {"n": [2**12, 2**16], "p": [1, 8]}
    defaults_ = CUTOFFS

    def predict(self, pts, n_draws):
        t = 1e-8 * pts["n"].to_numpy() / pts["p"].to_numpy()
        return Predictive(t * np.random.default_rng(0).lognormal(0, 0.05, (n_draws, len(pts))), pts)


def assert_title_inside(fig):
    fig.canvas.draw()
    title = fig.axes[0].title
    box, frame = title.get_window_extent(), fig.bbox
    assert frame.x0 <= box.x0 and box.x1 <= frame.x1, (box, frame)
    assert frame.y0 <= box.y0 and box.y1 <= frame.y1, (box, frame)


@pytest.mark.parametrize("vs", ["n", "p"])
def test_a_title_naming_many_fixed_parameters_fits(vs):
    fig = plot_band(PowerLaw(), vs=vs, at={"n": 2**24, "p": 36})
    text = fig.axes[0].get_title()
    for name, value in CUTOFFS.items():
        assert f"{name}={value:g}" in text.replace("\n", " ")
    assert_title_inside(fig)
    assert len(text.splitlines()) >= 2  # it did not fit on one line at 6.4 inches
    plt.close(fig)


def test_a_short_title_stays_on_one_line():
    fig = plot_band(PowerLaw(), vs="p", at={"n": 2**24, "p": 36}, title="sort at n = 2^24")
    assert fig.axes[0].get_title() == "sort at n = 2^24"
    assert_title_inside(fig)
    plt.close(fig)


def test_a_title_without_spaces_is_broken_inside_the_figure():
    fig = plot_band(PowerLaw(), vs="n", at={"p": 36}, title="x" * 300)
    assert fig.axes[0].get_title().replace("\n", "") == "x" * 300
    assert_title_inside(fig)
    plt.close(fig)



def test_a_sweep_far_beyond_the_data_marks_where_the_laws_form_alone_holds_it():
    # predict warns past far_factor times the largest training value (16x, or the
    # range's own ratio: 8x for p = 1..8); the band marks that place, 64 workers here
    import numpy as np

    from probperf.plot import plot_band
    from probperf.predict import Predictive

    class PowerLaw:
        train_ranges_ = {"n": [2**10, 2**14], "p": [1, 8]}
        train_points_ = {"n": [2**10, 2**14], "p": [1, 8]}

        def predict(self, pts, n_draws):
            t = 1e-8 * pts["n"].to_numpy() / pts["p"].to_numpy()
            return Predictive(t * np.random.default_rng(0).lognormal(0, 0.05, (n_draws, len(pts))), pts)

    far = plot_band(PowerLaw(), vs="p", at={"n": 2**16, "p": 1024})
    lines = {line.get_label(): line for line in far.axes[0].lines}
    assert lines["8x beyond: the laws' form alone"].get_xdata()[0] == 64
    near = plot_band(PowerLaw(), vs="p", at={"n": 2**16, "p": 32})  # not that far: no mark
    assert not any("beyond" in line.get_label() for line in near.axes[0].lines)
    # below the range (where predict warns at once) the smallest value is marked; inside it, not
    below = plot_band(PowerLaw(), vs="n", at={"n": 2**8, "p": 4})
    assert {ln.get_label(): ln for ln in below.axes[0].lines}["smallest training value"].get_xdata()[0] == 2**10
    assert "smallest training value" not in [ln.get_label() for ln in near.axes[0].lines]
    for fig in (far, near, below):
        plt.close(fig)


def test_a_caution_of_the_sweep_points_at_the_callers_line():
    # predict's cautions are said again from plot_band, so Python shows the user's line
    # (not plot.py's) and a user's filter still applies
    import warnings

    from probperf.cautions import ExtrapolationWarning, warn

    class Cautious(PowerLaw):
        train_ranges_ = {"n": [2**12, 2**16, 5], "p": [1, 8, 8]}  # low, high, distinct values

        def predict(self, pts, n_draws):
            warnings.warn_explicit("a library's own warning", DeprecationWarning, "library.py", 7)
            return warn(self, pts, super().predict(pts, n_draws))  # as a fitted model's predict ends

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = plot_band(Cautious(), vs="n", at={"n": 2**24, "p": 36})
    other = [(w.category, w.filename, w.lineno) for w in caught if w.category is not ExtrapolationWarning]
    assert other == [(DeprecationWarning, "library.py", 7)]  # passed on as it was raised
    caught = [w for w in caught if w.category is ExtrapolationWarning]
    assert {(w.category, w.filename) for w in caught} == {(ExtrapolationWarning, __file__)}
    assert any("256x the largest training value" in str(w.message) for w in caught)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        plt.close(plot_band(Cautious(), vs="n", at={"n": 2**24, "p": 36}))
    assert caught == []  # a user's filter still applies
    plt.close(fig)


class Steep(PowerLaw):
    """time = n^20: finite as far as 2^51, beyond what a log axis draws (1e200) from
    n = 1e10 on (the sweep's first point there: 1.718e10, 1e204)."""

    def predict(self, pts, n_draws):
        t = pts["n"].to_numpy() ** 20.0
        return Predictive(t * np.random.default_rng(0).lognormal(0, 0.05, (n_draws, len(pts))), pts)


def test_a_band_or_sweep_beyond_what_a_log_axis_draws_is_refused_by_name():
    # matplotlib's log axes break beyond about 1e260 (plot.AXIS_MAX = 1e200): a crash in
    # its tick placement or an empty figure, never a band drawn wrong
    with pytest.raises(ValueError, match=r"^the 90% interval is \d\.\d+e\+20\d from n=1\.718e\+10 on, beyond what"):
        plot_band(Steep(), vs="n", at={"n": 2.0**51, "p": 4})
    with pytest.raises(ValueError, match=r"^the sweep of n \(the training values and the point asked\) reaches 1e\+250"):
        plot_band(PowerLaw(), vs="n", at={"n": 1e250, "p": 4})
    assert plot_band(PowerLaw(), vs="n", at={"n": 1e190, "p": 4}).axes[0].get_xlim()[1] > 1e190
    plt.close("all")


class Overflowing(PowerLaw):
    """The PowerLaw's draws, of which a share (``OVERFLOWING``) overflow to inf beyond
    n = 2^20: the share past the 90 % band's upper tail (5 %) leaves the band finite."""

    share = 0.01

    def predict(self, pts, n_draws):
        draws = super().predict(pts, n_draws).draws
        over = np.arange(n_draws)[:, None] < self.share * n_draws
        return Predictive(np.where(over & (pts["n"].to_numpy() > 2**20), np.inf, draws), pts)


def test_a_few_overflowing_draws_leave_the_band_drawn_and_many_are_named_by_the_band():
    # 1 % of the draws overflowing: the bands' ends are finite, so the band is drawn (as
    # predict gives its interval); 20 %: the 90 % band's upper end is inf, named where
    fig = plot_band(Overflowing(), vs="n", at={"n": 2.0**22, "p": 4})
    assert np.all(np.isfinite(fig.axes[0].lines[0].get_ydata()))
    many = Overflowing()
    many.share = 0.2
    with pytest.raises(ValueError, match=r"^the 90% interval is not finite from n=1\.209e\+06 on \(overflow far"):
        plot_band(many, vs="n", at={"n": 2.0**22, "p": 4})
    plt.close("all")


def test_pgf_without_its_tex_system_is_refused_and_postscript_says_it_drops_transparency(tmp_path, monkeypatch):
    from probperf.plot import figure_format, save_figure

    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)  # no TeX on this machine
    tex = matplotlib.rcParams["pgf.texsystem"]
    with pytest.raises(ValueError, match=rf"^-o .*band\.pgf: a \.pgf figure needs {tex} \(matplotlib's "
                                         r"pgf\.texsystem\), which is not installed here; write \.pdf or \.svg$"):
        figure_format(tmp_path / "band.pgf")
    assert not (tmp_path / "band.pgf").exists()
    fig = plot_band(PowerLaw(), vs="n", at={"n": 2.0**18, "p": 4})
    with pytest.warns(UserWarning, match=r"band\.eps: PostScript has no transparency, so the bands are drawn opaque"):
        save_figure(fig, tmp_path / "band.eps", figure_format(tmp_path / "band.eps"))
    assert (tmp_path / "band.eps").read_bytes().startswith(b"%!PS-Adobe")
    plt.close("all")


def test_a_sweep_inside_one_octave_labels_its_axis_in_plain_numbers():
    # helper-84: n = 70..120 holds no power of 2, and the base-2 axis showed no label
    class Narrow(PowerLaw):
        train_ranges_ = {"n": [70, 120], "p": [1, 8]}

    fig = plot_band(Narrow(), vs="n", at={"p": 2})
    fig.canvas.draw()
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    shown = [t.get_text() for t, x in zip(ax.get_xticklabels(), ax.get_xticks()) if lo <= x <= hi and t.get_text()]
    assert len(shown) >= 2 and all(s.replace(".", "").isdigit() for s in shown), shown
    plt.close(fig)


@pytest.mark.parametrize("name", ["band.svgz", "BAND.SVGZ"])
def test_a_compressed_svg_names_the_figure_in_its_gzip_header(tmp_path, name):
    # helper-84: the header named the temporary file, which gunzip -N restored
    import gzip

    from probperf.plot import save_figure

    fig = plot_band(PowerLaw(), vs="p", at={"n": 2**16, "p": 16})
    save_figure(fig, tmp_path / name, "svgz")
    plt.close(fig)
    raw = (tmp_path / name).read_bytes()
    assert raw[3] & 0x08  # FNAME: the original name follows the 10-byte header
    assert raw[10:raw.index(b"\0", 10)] == name[:-1].encode()
    assert gzip.decompress(raw).startswith(b"<?xml")
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_runs_in_seconds_on_a_cycles_band_are_told_how_to_read_counts():
    # helper-84: the message said "give runs in the model's unit" and not how
    from probperf.data import Measurements

    class Cycles(PowerLaw):
        unit_ = "cycles"

    runs = Measurements({"n": [2**12, 2**13], "p": [1, 1], "time": [4e5, 8e5]})
    with pytest.raises(ValueError, match=r"are in s, the model in cycles: give runs in the model's unit "
                                         r"\(a file of cycle counts is read with --unit cycles\)$"):
        plot_band(Cycles(), vs="n", at={"p": 1}, data=runs)
    plt.close("all")
