"""The match equity table (Kazaross-XG2): published values, the invariants every match equity
table has, the Crawford rule, and equity <-> match winning chance."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from gammon.engine.data import kazaross_xg2
from gammon.engine.met import (
    MAX_AWAY,
    MET_NAME,
    MatchEquityError,
    MatchScore,
    eq2mwc,
    gammon_values,
    match_winning_chance,
    mwc2eq,
    post_crawford_mwc,
    read_gnubg_met,
)

GNUBG_MET = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")
AWAYS = range(1, MAX_AWAY + 1)


@pytest.mark.parametrize(
    ("away_me", "away_opp", "published"),
    [
        (1, 2, 0.67736),  # the Crawford game, leader 1-away against 2-away
        (2, 1, 0.32264),
        (2, 4, 0.66870),
        (3, 5, 0.64795),
        (4, 7, 0.69924),
        (7, 7, 0.5),
        (1, 25, 0.99905),
        (10, 11, 0.548547),
    ],
)
def test_spot_values_are_the_published_kazaross_xg2_numbers(
    away_me: int, away_opp: int, published: float
) -> None:
    assert match_winning_chance(away_me, away_opp) == pytest.approx(published, abs=1e-9)


def test_spot_values_of_the_post_crawford_table_are_the_published_numbers() -> None:
    assert [post_crawford_mwc(n) for n in (1, 2, 3, 4, 5, 25)] == pytest.approx(
        [0.5, 0.48803, 0.32264, 0.31002, 0.19012, 0.001230])
    assert match_winning_chance(1, 3, post_crawford=True) == pytest.approx(1 - 0.32264)


def test_the_table_names_its_source() -> None:
    assert MET_NAME == "Kazaross-XG2"
    assert "Neil Kazaross" in kazaross_xg2.SOURCE
    assert "Copyright (C) 2011 Neil Kazaross" in (kazaross_xg2.__doc__ or "")
    assert MAX_AWAY == 25


@pytest.mark.skipif(not GNUBG_MET.exists(), reason="GNU Backgammon's MET files not installed")
def test_the_stored_table_is_gnubg_s_kazaross_xg2_file_digit_for_digit() -> None:
    name, pre, post = read_gnubg_met(GNUBG_MET)
    assert name == kazaross_xg2.DESCRIPTION
    assert pre == kazaross_xg2.PRE_CRAWFORD
    assert post == kazaross_xg2.POST_CRAWFORD


def test_symmetry_my_chance_and_the_opponents_add_up_to_one() -> None:
    for a in AWAYS:
        for b in AWAYS:
            assert match_winning_chance(a, b) + match_winning_chance(b, a) == pytest.approx(1.0)


def test_an_equal_score_is_an_even_match() -> None:
    assert all(match_winning_chance(n, n) == 0.5 for n in AWAYS)


def test_the_table_is_monotone_in_the_score() -> None:
    for a in AWAYS:
        for b in AWAYS:
            if a < MAX_AWAY:  # needing more points is worse
                assert match_winning_chance(a + 1, b) < match_winning_chance(a, b)
            if b < MAX_AWAY:  # the opponent needing more is better
                assert match_winning_chance(a, b + 1) > match_winning_chance(a, b)
    trailer = [post_crawford_mwc(n) for n in AWAYS]
    assert all(x > y for x, y in itertools.pairwise(trailer))


def test_post_crawford_free_drop_makes_even_aways_nearly_the_odd_one_below() -> None:
    # The trailer doubles at once; the leader can drop the first double at 2-away (or 4-away)
    # for free, so 2-away is barely worse than 1-away/1-away and 4-away than 3-away.
    assert 0.48 < post_crawford_mwc(2) < 0.5
    assert post_crawford_mwc(3) - post_crawford_mwc(4) < 0.02
    assert post_crawford_mwc(2) - post_crawford_mwc(3) > 0.15


def test_the_cube_coming_back_after_the_crawford_game_helps_the_trailer() -> None:
    crawford = match_winning_chance(2, 1)  # the Crawford game: no cube
    post = match_winning_chance(2, 1, post_crawford=True)
    assert crawford == pytest.approx(0.32264) and post == pytest.approx(0.48803)


def test_a_side_1_away_without_flags_is_the_crawford_game_and_1_away_each_is_post_crawford(
) -> None:
    assert MatchScore(1, 4).crawford and not MatchScore(1, 4).post_crawford
    assert MatchScore(1, 1).post_crawford
    assert match_winning_chance(1, 1) == 0.5


def test_a_game_before_the_crawford_game_leads_to_it_and_after_it_to_post_crawford() -> None:
    # 3-away/3-away, I win 2: 1-away/3-away and the next game is the Crawford game
    assert MatchScore(3, 3).after(2, i_win=True) == pytest.approx(0.75076)
    # the Crawford game at 1-away/3-away, the opponent wins 1: 1-away/2-away post-Crawford
    assert MatchScore(1, 3).after(1, i_win=False) == pytest.approx(1 - 0.48803)
    # post-Crawford, the trailer 3-away wins a doubled game: 1-away/1-away
    assert MatchScore(3, 1, post_crawford=True).after(2, i_win=True) == 0.5
    # reaching the end of the match
    assert MatchScore(3, 3).after(4, i_win=True) == 1.0
    assert MatchScore(3, 3).after(3, i_win=False) == 0.0


def test_score_from_a_match_id_marks_post_crawford_when_the_crawford_flag_is_off() -> None:
    assert MatchScore.from_score(7, 6, 3, crawford=True) == MatchScore(1, 4, crawford=True)
    assert MatchScore.from_score(7, 6, 3, crawford=False) == MatchScore(
        1, 4, post_crawford=True)
    assert MatchScore.from_score(7, 2, 3, crawford=False) == MatchScore(5, 4)
    with pytest.raises(MatchEquityError, match="Crawford"):
        MatchScore.from_score(7, 2, 3, crawford=True)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((0, 3), {}, "1 to 25"),
        ((26, 3), {}, "25 points"),
        ((3, 5), {"crawford": True}, "1-away"),
        ((1, 5), {"crawford": True, "post_crawford": True}, "both"),
        ((1, 1), {"crawford": True}, "never the Crawford game"),
    ],
)
def test_impossible_or_uncharted_scores_are_refused(
    args: tuple[int, int], kwargs: dict[str, bool], message: str
) -> None:
    with pytest.raises(MatchEquityError, match=message):
        match_winning_chance(*args, **kwargs)


def test_equity_and_match_winning_chance_convert_both_ways() -> None:
    score = MatchScore(4, 2)
    win, lose = score.after(2, i_win=True), score.after(2, i_win=False)
    assert eq2mwc(1.0, score, 2) == pytest.approx(win)  # +1: I win the cube's value
    assert eq2mwc(-1.0, score, 2) == pytest.approx(lose)
    assert eq2mwc(0.0, score, 2) == pytest.approx((win + lose) / 2)
    for equity in (-2.5, -0.3, 0.0, 0.7, 1.9):
        assert mwc2eq(eq2mwc(equity, score, 2), score, 2) == pytest.approx(equity)


def test_gammon_values_in_a_long_match_are_near_money_and_vanish_where_gammons_cannot_count(
) -> None:
    far = gammon_values(MatchScore(25, 25))
    assert far.win_gammon == pytest.approx(0.5, abs=0.1)
    # post-Crawford, trailing 3-away: the leader's single win already ends the match
    trailing = gammon_values(MatchScore(3, 1, post_crawford=True))
    assert trailing.lose_gammon == 0.0 and trailing.lose_backgammon == 0.0
    # 2-away/4-away: my gammon wins the match, so a backgammon adds nothing to it
    v = gammon_values(MatchScore(2, 4))
    assert v.win_backgammon == v.win_gammon


def test_read_gnubg_met_reads_explicit_tables_and_refuses_parametrised_ones(
    tmp_path: Path,
) -> None:
    explicit = tmp_path / "tiny.xml"
    explicit.write_text(
        "<met><info><name>Tiny</name><description>d</description><length>2</length></info>"
        "<pre-crawford-table type='explicit'><row><me>0.5</me><me>0.7</me></row>"
        "<row><me>0.3</me><me>0.5</me></row></pre-crawford-table>"
        "<post-crawford-table type='explicit' player='both'><row><me>0.5</me><me>0.49</me>"
        "</row></post-crawford-table></met>")
    assert read_gnubg_met(explicit) == ("Tiny", ((0.5, 0.7), (0.3, 0.5)), (0.5, 0.49))
    parametrised = tmp_path / "zadeh.xml"
    parametrised.write_text(
        "<met><info><name>Z</name><description>d</description><length>2</length></info>"
        "<pre-crawford-table type='Zadeh'><parameters/></pre-crawford-table>"
        "<post-crawford-table type='explicit'><row><me>0.5</me></row></post-crawford-table>"
        "</met>")
    with pytest.raises(MatchEquityError, match="explicit"):
        read_gnubg_met(parametrised)
