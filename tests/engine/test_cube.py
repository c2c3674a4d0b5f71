"""Cube decisions (RULES.md §5) and resignations (§6) at named scores, with hand-built
probabilities and the expected decisions worked out by hand from the match equity table and
Janowski's formulas, and against GNU Backgammon's own 0-ply numbers."""

from __future__ import annotations

import pytest

from gammon.core.cube import Level
from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.engine.cube import (
    BEAROFF_EFFICIENCY,
    CONTACT_EFFICIENCY,
    DEFAULT_EFFICIENCY,
    GNUBG_EFFICIENCY,
    CubeAction,
    CubeEfficiency,
    CubeError,
    CubeInfo,
    Owner,
    Response,
    accept_resignation,
    analyse_cube,
    analyse_resignation,
    analyse_resignation_offer,
    analyse_take,
    cube_decision,
    cube_efficiency,
    cubeful_equity,
    cubeful_mwc,
    efficiency_for,
    race_efficiency,
    resign_equity,
    resignation_offer,
    take_decision,
)
from gammon.engine.met import MatchScore
from gammon.engine.player import Engine, Probabilities
from gammon.formats.match_id import MatchKey


def probs(win: float, win_gammon: float = 0.0, win_backgammon: float = 0.0,
          lose_gammon: float = 0.0, lose_backgammon: float = 0.0) -> Probabilities:
    return Probabilities(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)


def action(p: Probabilities, info: CubeInfo, efficiency: float = CONTACT_EFFICIENCY) -> CubeAction:
    return cube_decision(p, info, efficiency=efficiency).action


MONEY = CubeInfo()

# -- money play: Janowski's formulas -------------------------------------------------------------


@pytest.mark.parametrize(
    ("win", "expected"),
    [(0.49, CubeAction.NO_DOUBLE), (0.51, CubeAction.DOUBLE_TAKE), (0.74, CubeAction.DOUBLE_TAKE),
     (0.76, CubeAction.DOUBLE_PASS)],
)
def test_money_dead_cube_doubles_from_50_percent_and_is_taken_down_to_a_25_percent_take_point(
    win: float, expected: CubeAction
) -> None:
    # x = 0, no gammons: ND = 2p - 1, DT = 2(2p - 1), DP = 1. DT > ND from p = 50%; the
    # receiver passes once DT > 1, at p = 75% (his 25% take point).
    assert action(probs(win), MONEY, efficiency=0.0) is expected


@pytest.mark.parametrize(("win", "expected"), [(0.79, Response.TAKE), (0.81, Response.PASS)])
def test_money_fully_live_cube_take_point_is_20_percent(win: float, expected: Response) -> None:
    # x = 1, W = L = 1: Janowski's live take point (L - 1/2) / (W + L + 1/2) = 0.5 / 2.5
    assert take_decision(probs(win), MONEY, efficiency=1.0).response is expected


@pytest.mark.parametrize(
    ("win", "expected"),
    [(0.68, CubeAction.NO_DOUBLE), (0.70, CubeAction.DOUBLE_TAKE), (0.78, CubeAction.DOUBLE_TAKE),
     (0.79, CubeAction.DOUBLE_PASS), (0.80, CubeAction.DOUBLE_PASS)],
)
def test_money_without_gammons_the_doubling_window_at_x_068(win: float,
                                                            expected: CubeAction) -> None:
    # W = L = 1, x = 0.68. Centred: live = -1 + (p - 0.2) / 0.3 between TP 20% and CP 80%,
    # so ND = 0.68 live + 0.32 (2p - 1) = 2.9067 p - 1.4533. After the take the opponent owns
    # the cube: live = -1 + 2.5 (p - 0.2), DT = 2 (2.34 p - 1.34) = 4.68 p - 2.68.
    # ND = DT at p = 69.2% (the doubling point); DT = DP = 1 at p = 78.6% (the receiver's
    # 21.4% take point). 80% without gammons is double/pass.
    assert action(probs(win), MONEY) is expected


def test_money_equities_are_janowski_s_by_hand() -> None:
    d = cube_decision(probs(0.72), MONEY)
    live_centred = -1 + 2 * (0.72 - 0.2) / (0.8 - 0.2)
    live_theirs = -1 + 2 * (0.72 - 0.2) / (1 - 0.2)
    dead = 2 * 0.72 - 1
    assert d.no_double == pytest.approx(0.68 * live_centred + 0.32 * dead)
    assert d.double_take == pytest.approx(2 * (0.68 * live_theirs + 0.32 * dead))
    assert d.double_pass == 1.0 and d.equity == d.double_take
    assert d.mwc_no_double is None  # money: no match winning chances


GAMMONISH = probs(0.9, 0.6)  # 90% wins, two thirds of them gammons, no losses by gammon


def test_money_huge_gammon_chances_without_jacoby_are_too_good_to_double() -> None:
    # W = 1 + 0.6 / 0.9 = 5/3, L = 1: CP = 2 / 3.1667 = 63%; at p = 90% ND is near the
    # cubeless +1.4 and beyond the +1 of double/pass: play on for the gammon; a double
    # would be passed (DT = 2.73).
    d = cube_decision(GAMMONISH, MONEY)
    assert d.action is CubeAction.TOO_GOOD_PASS
    assert d.no_double > 1.4 and d.double_take is not None and d.double_take > 2.7
    assert d.equity == d.no_double


def test_jacoby_rule_makes_the_same_position_a_double_pass() -> None:
    # With the Jacoby rule a gammon counts only once the cube is turned: playing on with a
    # centred cube wins at most +1 (dead: 2p - 1 = 0.8, live: cashed), so cash it now.
    d = cube_decision(GAMMONISH, CubeInfo.money(jacoby=True))
    assert d.action is CubeAction.DOUBLE_PASS
    assert d.no_double == pytest.approx(0.68 * 1.0 + 0.32 * 0.8)
    assert d.equity == 1.0


def test_jacoby_rule_does_not_apply_once_the_cube_is_turned() -> None:
    owned = CubeInfo.money(2, Owner.ME, jacoby=True)
    assert action(GAMMONISH, owned) is CubeAction.TOO_GOOD_PASS


def test_jacoby_rule_makes_a_resigned_gammon_a_single_with_the_cube_centred() -> None:
    assert resign_equity(CubeInfo.money(jacoby=True), Level.GAMMON) == -1.0
    assert resign_equity(CubeInfo.money(2, Owner.OPPONENT, jacoby=True), Level.GAMMON) == -2.0


def test_money_no_double_when_the_opponent_owns_the_cube() -> None:
    d = cube_decision(probs(0.9), CubeInfo.money(2, Owner.OPPONENT))
    assert d.action is CubeAction.NO_DOUBLE and d.reason == "the opponent owns the cube"
    assert d.double_take is None and d.double_pass is None and d.response is None
    with pytest.raises(CubeError, match="no double can be pending"):
        take_decision(probs(0.9), CubeInfo.money(2, Owner.OPPONENT))


def test_the_cube_stops_at_64() -> None:
    d = cube_decision(probs(0.9), CubeInfo.money(64, Owner.ME))
    assert d.action is CubeAction.NO_DOUBLE and "maximum of 64" in (d.reason or "")
    # doubling 32 -> 64 leaves the taker a cube he can never turn: the doubled game is dead
    d = cube_decision(probs(0.7), CubeInfo.money(32, Owner.ME))
    assert d.double_take == pytest.approx(2 * (2 * 0.7 - 1))
    with pytest.raises(CubeError, match="power of two from 1 to 64"):
        CubeInfo.money(128, Owner.ME)


def test_beaver_when_taking_is_better_than_even_for_the_receiver() -> None:
    # 40% for the doubler: after a take the receiver is the favourite (DT < 0), so with
    # beavers on he beavers, owning the cube at 4: twice the take's equity for him.
    beavers = CubeInfo.money(beavers=True)
    answer = take_decision(probs(0.4), beavers)
    assert answer.response is Response.BEAVER
    assert answer.take > 0 and answer.beaver == pytest.approx(2 * answer.take)
    assert take_decision(probs(0.4), MONEY).response is Response.TAKE
    assert cube_decision(probs(0.4), beavers).action is CubeAction.NO_DOUBLE
    # a beaver would take a 32-cube past 64: not offered
    high = take_decision(probs(0.4), CubeInfo.money(32, Owner.ME, beavers=True))
    assert high.response is Response.TAKE and high.beaver is None


def test_money_cubeful_equity_with_a_cube_i_own_is_worth_more_than_a_dead_one() -> None:
    p = probs(0.6, 0.15, 0.01, 0.1, 0.005)
    mine = cubeful_equity(p, CubeInfo.money(2, Owner.ME))
    theirs = cubeful_equity(p, CubeInfo.money(2, Owner.OPPONENT))
    dead = cubeful_equity(p, MONEY, efficiency=0.0)
    assert mine > dead > theirs
    assert dead == pytest.approx(p.equity)


# -- match play --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("win", "expected"),
    [(0.49, CubeAction.NO_DOUBLE), (0.51, CubeAction.DOUBLE_TAKE), (0.677, CubeAction.DOUBLE_TAKE),
     (0.678, CubeAction.DOUBLE_PASS)],
)
def test_2_away_2_away_take_point_is_32_percent_from_the_table(
    win: float, expected: CubeAction
) -> None:
    # After a double at 2-away/2-away any win ends the match (double match point): the taker
    # wins with his game chances. Passing leaves him 2-away against 1-away in the Crawford
    # game: 1 - MET(1-away, 2-away) = 1 - 0.67736 = 32.264%, his take point; the doubler's
    # pass point is 67.736%. Holding the cube has no live value here (the first double is
    # final), so ND is the cubeless 0.32264 + 0.35472 p (no gammons) and the double is right
    # from 50%.
    d = cube_decision(probs(win), CubeInfo.match(2, 2))
    assert d.action is expected
    assert d.mwc_double_take == pytest.approx(win)
    assert d.mwc_double_pass == pytest.approx(0.67736)
    assert d.mwc_no_double == pytest.approx(0.32264 + (0.67736 - 0.32264) * win)


def test_2_away_2_away_gammons_are_a_reason_to_hold_the_cube() -> None:
    # p = 60% with half the wins gammons: a gammon wins the match undoubled, so ND =
    # 0.3 * 0.67736 + 0.3 * 1 + 0.4 * 0.32264 = 0.6323 beats DT = 0.6 (gammons cannot help
    # after the double: every win already ends the match).
    d = cube_decision(probs(0.6, 0.3), CubeInfo.match(2, 2))
    assert d.mwc_no_double == pytest.approx(0.3 * 0.67736 + 0.3 + 0.4 * 0.32264)
    assert d.mwc_double_take == pytest.approx(0.6)
    assert d.action is CubeAction.NO_DOUBLE


@pytest.mark.parametrize(("away_me", "away_opp"), [(1, 3), (3, 1), (1, 2)])
def test_crawford_game_never_has_a_double(away_me: int, away_opp: int) -> None:
    info = CubeInfo.match(away_me, away_opp, crawford=True)
    for win in (0.05, 0.5, 0.95):
        d = cube_decision(probs(win, win / 2), info)
        assert d.action is CubeAction.NO_DOUBLE
        assert d.reason == "the Crawford game: no cube"
        assert d.double_take is None and d.response is None
    with pytest.raises(CubeError):
        take_decision(probs(0.9), info)
    with pytest.raises(CubeError, match="out of play in the Crawford game"):
        CubeInfo.match(1, 3, 2, Owner.ME)


def test_crawford_game_is_valued_cubeless_from_the_table() -> None:
    # 1-away/3-away: a win ends the match, a single loss leaves 1-away/2-away post-Crawford
    # (trailer 0.48803), a gammon loss 1-away/1-away
    d = cube_decision(probs(0.6, 0.0, 0.0, 0.1), CubeInfo.match(1, 3))
    expected = 0.6 * 1.0 + 0.3 * (1 - 0.48803) + 0.1 * 0.5
    assert d.mwc_no_double == pytest.approx(expected)
    assert cubeful_mwc(probs(0.6, 0.0, 0.0, 0.1), CubeInfo.match(1, 3),
                       efficiency=1.0) == pytest.approx(expected)


TRAILER_AWAYS = (2, 3, 4, 5, 8)


@pytest.mark.parametrize("away", TRAILER_AWAYS)
def test_post_crawford_trailer_doubles_at_once(away: int) -> None:
    # Post-Crawford the trailer loses the match with any lost game, so a double risks nothing,
    # and the leader's cube is dead: the trailer should double at the first chance. Whatever
    # the position, the answer is never "no double": double/take, double/pass, or too good.
    info = CubeInfo.match(away, 1, post_crawford=True)
    for win in (0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95):
        for gammon_share in (0.0, 0.2, 0.5):
            a = action(probs(win, win * gammon_share, 0.0, (1 - win) * 0.2), info)
            assert a is not CubeAction.NO_DOUBLE, (win, gammon_share, a)


def test_post_crawford_leader_takes_the_trailers_early_double() -> None:
    # Trailer 3-away at 50%, no gammons. Leader passing: trailer 2-away, 0.48803. Leader
    # taking: the trailer needs to win this game to reach 1-away/1-away (0.5): 0.5 * 0.5 =
    # 0.25 for the trailer. The leader takes (0.75 > 0.51197).
    answer = take_decision(probs(0.5), CubeInfo.match(3, 1, post_crawford=True))
    assert answer.response is Response.TAKE
    assert answer.mwc_take == pytest.approx(0.75)
    assert answer.mwc_pass == pytest.approx(1 - 0.48803)


@pytest.mark.parametrize(("win", "expected"), [(0.49, CubeAction.DOUBLE_TAKE),
                                                (0.51, CubeAction.DOUBLE_PASS)])
def test_post_crawford_free_drop_at_2_away(win: float, expected: CubeAction) -> None:
    # Trailer 2-away: after a take every game decides the match (DT = p); a drop gives
    # 1-away/1-away (0.5). The leader takes only as the favourite: his drop costs him just
    # 0.5 - 0.48803 of what the score was worth, the "free drop".
    d = cube_decision(probs(win), CubeInfo.match(2, 1, post_crawford=True))
    assert d.action is expected
    assert d.mwc_double_pass == 0.5 and d.mwc_double_take == pytest.approx(win)


def test_post_crawford_leader_has_a_dead_cube() -> None:
    info = CubeInfo.match(1, 3, post_crawford=True)
    assert info.is_dead_for_me()
    d = cube_decision(probs(0.7), info)
    assert d.action is CubeAction.NO_DOUBLE and "dead cube" in (d.reason or "")
    assert d.double_take is not None  # legal, just pointless


def test_dead_cube_when_a_single_win_already_wins_the_match() -> None:
    # 2-away owning a 2-cube: any win ends the match, so a redouble can only lose more
    info = CubeInfo.match(2, 5, 2, Owner.ME)
    d = cube_decision(probs(0.8, 0.2), info)
    assert d.action is CubeAction.NO_DOUBLE and "dead cube" in (d.reason or "")
    assert d.mwc_double_take is not None and d.mwc_no_double is not None
    assert d.mwc_double_take <= d.mwc_no_double


def test_automatic_redouble_when_the_doubler_is_within_reach_of_the_match() -> None:
    # 2-away/5-away, the opponent holds a 2-cube: my wins end the match, so my cube is dead
    # and his redouble to 4 costs him nothing: with a fully live cube he redoubles at once,
    # and from my take point up my chances are p + (1 - p) * MWC(2-away, 1-away Crawford).
    info = CubeInfo.match(2, 5, 2, Owner.OPPONENT)
    live = cubeful_mwc(probs(0.7), info, efficiency=1.0)
    assert live == pytest.approx(0.7 + 0.3 * 0.32264)
    dead = cubeful_mwc(probs(0.7), info, efficiency=0.0)
    assert dead == pytest.approx(0.7 + 0.3 * 0.59947)  # losing 2 only: 2-away/3-away


def test_match_equities_are_normalised_to_the_present_cube() -> None:
    d = cube_decision(probs(0.72, 0.2, 0.01, 0.1), CubeInfo.match(5, 7))
    assert d.double_pass == pytest.approx(1.0)
    assert d.mwc_double_pass == pytest.approx(MatchScore(5, 7).after(1, i_win=True))
    assert cubeful_equity(probs(0.5), CubeInfo.match(1, 1)) == pytest.approx(0.0)


# -- the same numbers as GNU Backgammon --------------------------------------------------------

# GNU Backgammon 1.07 (Kazaross-XG2 table, default cube efficiencies), "eval" at 0-ply: its
# probabilities for the side on roll, then its no-double, double/take, double/pass equities
# (None where it shows no cube analysis) and proper cube action.
GNUBG_0PLY = [
    ("money, cube 1 centred: Double, take", "Us+DAyC6OpIDQA", "cAkAAAAAAAAE",
     (0.61584, 0.31867, 0.02501, 0.11484, 0.00638),
     0.60958, 0.64703, 1.0, "double-take"),
    ("money, cube 1 centred: Double, pass", "F3QVAgeL5iGgQQ", "cAkAAAAAAAAE",
     (0.67828, 0.35851, 0.03191, 0.08874, 0.00235),
     0.88539, 1.09303, 1.0, "double-pass"),
    ("money, cube 1 centred: No double, beaver", "NAc2CjjuXQIgGA", "cAkAAAAAAAAE",
     (0.47071, 0.2533, 0.03418, 0.14285, 0.00352),
     0.08797, -0.19484, 1.0, "no-double"),
    ("money, cube 1 centred: No double, take", "lNcHATAqZ/ABEQ", "cAkAAAAAAAAE",
     (0.55589, 0.19397, 0.02163, 0.1495, 0.00792),
     0.23383, 0.03794, 1.0, "no-double"),
    ("money, cube 1 centred: Too good to double, pass", "P9ARwEE73EMFAA", "cAkAAAAAAAAE",
     (0.9221, 0.32926, 0.00219, 0.00673, 0.0),
     1.23321, 2.28485, 1.0, "too-good-pass"),
    ("money, cube 1 centred: Double, pass", "4HO7BACUz3cAAA", "cAkAAAAAAAAE",
     (0.88853, 5e-05, 0.0, 5e-05, 0.0),
     0.92868, 1.47833, 1.0, "double-pass"),
    ("money, cube 1 centred: No double, take", "/cxRAgDfsDsAAA", "cAkAAAAAAAAE",
     (0.60783, 5e-05, 0.0, 5e-05, 0.0),
     0.30659, 0.18326, 1.0, "no-double"),
    ("money, cube 1 centred: No double, beaver", "93wAAODS+wEAAA", "cAkAAAAAAAAE",
     (0.03998, 0.0, 0.0, 0.0, 0.0),
     -0.96801, -1.93603, 1.0, "no-double"),
    ("money, cube 2 owned by me: Redouble, take", "LZaAg0nnWREQQg", "UQkAAAAAAAAE",
     (0.58507, 0.51159, 0.03474, 0.13513, 0.0189),
     0.76137, 0.84274, 1.0, "double-take"),
    ("money, cube 2 owned by me: Too good to redouble, pass", "P9ARwEE73EMFAA", "UQkAAAAAAAAE",
     (0.9221, 0.32926, 0.00219, 0.00673, 0.0),
     1.23321, 2.28485, 1.0, "too-good-pass"),
    ("money, cube 2 owned by opponent: no cube action", "P9ARwEE73EMFAA", "QQkAAAAAAAAE",
     (0.9221, 0.32926, 0.00219, 0.00673, 0.0),
     1.14243, None, None, "no-double"),
    ("money, Jacoby, cube 1 centred: Double, pass", "/nEIQEH7G4KABA", "cAkAAAAAAAAA",
     (0.80525, 0.31626, 0.01112, 0.02333, 0.00023),
     0.87536, 1.69619, 1.0, "double-pass"),
    ("money, Jacoby, cube 1 centred: Double, take", "Us+DAyC6OpIDQA", "cAkAAAAAAAAA",
     (0.61584, 0.31867, 0.02501, 0.11484, 0.00638),
     0.5384, 0.64703, 1.0, "double-take"),
    ("3-away/3-away, cube 1 centred: Double, take", "HioxQgtgPRiwWA", "cAlgAAAAAAAE",
     (0.66079, 0.30286, 0.03279, 0.12954, 0.00937),
     0.82857, 0.99163, 1.0, "double-take"),
    ("3-away/3-away, cube 1 centred: Too good to double, pass", "z1gQwCxkn0kEAw", "cAlgAAAAAAAE",
     (0.79713, 0.31128, 0.01571, 0.0461, 0.00108),
     1.16368, 1.9654, 1.0, "too-good-pass"),
    ("2-away/2-away, cube 1 centred: Double, take", "55jEIBiZBoywTA", "cAngAFAAKAAE",
     (0.48449, 0.15366, 0.01083, 0.28881, 0.0246),
     -0.27687, -0.08745, 1.0, "double-take"),
    ("2-away/2-away, cube 1 centred: No double, take", "b57SAACfNgkhQA", "cAngAFAAKAAE",
     (0.33655, 0.09606, 0.00385, 0.16691, 0.00212),
     -0.45577, -0.92156, 1.0, "no-double"),
    ("7-away/7-away, cube 1 centred: No double, take", "NAc2CjjuXQIgGA", "cAngAAAAAAAE",
     (0.47071, 0.2533, 0.03418, 0.14285, 0.00352),
     0.06715, -0.2672, 1.0, "no-double"),
    ("5-away/3-away, cube 1 centred: Double, pass", "LZaAg0nnWREQQg", "cAngAEAAEAAE",
     (0.58507, 0.51159, 0.03474, 0.13513, 0.0189),
     0.8613, 1.33993, 1.0, "double-pass"),
    ("2-away/7-away, cube 1 centred: Double, take", "z1gQwCxkn0kEAw", "cAngAAAAKAAE",
     (0.79713, 0.31128, 0.01571, 0.0461, 0.00108),
     0.94678, 0.99717, 1.0, "double-take"),
    ("2-away/5-away, cube 1 centred: No double, take", "55jEIBiZBoywTA", "cAnAABAAIAAE",
     (0.48449, 0.15366, 0.01083, 0.28881, 0.0246),
     -0.46076, -1.52985, 1.0, "no-double"),
    ("6-away/4-away, cube 2 owned by me: Redouble, take", "lNcHATAqZ/ABEQ", "UQngADAACAAE",
     (0.55589, 0.19397, 0.02163, 0.1495, 0.00792),
     0.52356, 0.57241, 1.0, "double-take"),
    ("6-away/4-away, cube 2 owned by me: No redouble, take", "NAc2CjjuXQIgGA", "UQngADAACAAE",
     (0.47071, 0.2533, 0.03418, 0.14285, 0.00352),
     0.39014, 0.3232, 1.0, "no-double"),
    ("7-away/2-away, cube 2 owned by me: Redouble, pass", "55jEIBiZBoywTA", "UQngAFAAAAAE",
     (0.48449, 0.15366, 0.01083, 0.28881, 0.0246),
     0.75733, 1.2321, 1.0, "double-pass"),
    ("4-away/8-away, cube 2 owned by opponent: no cube action", "55jEIBiZBoywTA", "QQkgARAAKAAE",
     (0.48449, 0.15366, 0.01083, 0.28881, 0.0246),
     -0.81701, None, None, "no-double"),
    ("4-away/4-away, cube 4 owned by opponent: no cube action", "P9ARwEE73EMFAA", "QgngADAAGAAE",
     (0.9221, 0.32926, 0.00219, 0.00673, 0.0),
     0.84419, None, None, "no-double"),
    ("1-away/4-away (Crawford game), cube 1 centred: no cube action",
     "P9ARwEE73EMFAA", "8AngADAAMAAE",
     (0.9221, 0.32926, 0.00219, 0.00673, 0.0),
     0.83729, None, None, "no-double"),
    ("1-away/4-away (post-Crawford), cube 1 centred: no cube action",
     "P9ARwEE73EMFAA", "cAngADAAMAAE",
     (0.9221, 0.32926, 0.00219, 0.00673, 0.0),
     0.77314, None, None, "no-double"),
    ("4-away/1-away (post-Crawford), cube 1 centred: Double, take",
     "N/MGCAL1WOAARg", "cAngAGAAGAAE",
     (0.19466, 0.02832, 0.00056, 0.41757, 0.00792),
     -0.40454, -0.32122, 1.0, "double-take"),
    ("5-away/1-away (post-Crawford), cube 1 centred: Double, take",
     "Us+DAyC6OpIDQA", "cAngAGAAEAAE",
     (0.61584, 0.31867, 0.02501, 0.11484, 0.00638),
     0.5854, 0.72709, 1.0, "double-take"),
    ("5-away/1-away (post-Crawford), cube 1 centred: Too good to double, pass",
     "Tp4IAF1cnQcIJA", "cAngAGAAEAAE",
     (0.80307, 0.56278, 0.18399, 0.02541, 0.00043),
     1.06631, 1.9089, 1.0, "too-good-pass"),
    ("8-away/6-away, cube 2 owned by me: Redouble, pass", "4HO7BACUz3cAAA", "UQkgATAACAAE",
     (0.88853, 5e-05, 0.0, 5e-05, 0.0),
     0.92869, 1.647, 1.0, "double-pass"),
    ("4-away/6-away, cube 1 centred: No double, take", "93wAAODS+wEAAA", "cAngABAAGAAE",
     (0.03998, 0.0, 0.0, 0.0, 0.0),
     -0.96801, -2.08329, 1.0, "no-double"),
    ("25-away/25-away, cube 1 centred: Double, take", "HioxQgtgPRiwWA", "cAkgAwAAAAAE",
     (0.66079, 0.30286, 0.03279, 0.12954, 0.00937),
     0.71167, 0.81217, 1.0, "double-take"),
    ("15-away/5-away, cube 4 owned by me: Redouble, take", "b57SAACfNgkhQA", "UgkgA0ABUAAE",
     (0.33655, 0.09606, 0.00385, 0.16691, 0.00212),
     0.55106, 0.87737, 1.0, "double-take"),
    ("5-away/12-away, cube 4 owned by me: No redouble, take", "55jEIBiZBoywTA", "UgngATAAUAAE",
     (0.48449, 0.15366, 0.01083, 0.28881, 0.0246),
     -0.56236, -2.09318, 1.0, "no-double"),
]


@pytest.mark.parametrize(
    ("situation", "position_id", "match_id", "probabilities", "no_double", "double_take",
     "double_pass", "expected"),
    GNUBG_0PLY, ids=[row[0] for row in GNUBG_0PLY],
)
def test_cube_equities_and_action_agree_with_gnubg_at_0_ply(
    situation: str, position_id: str, match_id: str,
    probabilities: tuple[float, float, float, float, float], no_double: float,
    double_take: float | None, double_pass: float | None, expected: str,
) -> None:
    info = CubeInfo.from_match_key(MatchKey.from_id(match_id))
    efficiency = cube_efficiency(Position.from_id(position_id), GNUBG_EFFICIENCY)
    d = cube_decision(probs(*probabilities), info, efficiency=efficiency)
    assert d.no_double == pytest.approx(no_double, abs=1e-4)
    if double_take is not None:
        assert d.double_take == pytest.approx(double_take, abs=1e-4)
        assert d.double_pass == pytest.approx(double_pass, abs=1e-4)
    assert d.action == expected


# -- resignations -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "info", "expected"),
    [
        (probs(0.0), MONEY, Level.SINGLE),
        (probs(0.0, 0.0, 0.0, 1.0), MONEY, Level.GAMMON),
        (probs(0.0, 0.0, 0.0, 1.0, 1.0), MONEY, Level.BACKGAMMON),
        (probs(0.0, 0.0, 0.0, 0.5), MONEY, None),  # a gammon in doubt: play on
        (probs(0.1), MONEY, None),  # still some winning chances
        # with the Jacoby rule and a centred cube a gammon scores as a single
        (probs(0.0, 0.0, 0.0, 1.0), CubeInfo.money(jacoby=True), Level.SINGLE),
        # post-Crawford trailer: any lost game loses the match, gammon or not
        (probs(0.0, 0.0, 0.0, 0.6), CubeInfo.match(3, 1, post_crawford=True), Level.SINGLE),
        # 3-away/2-away with the cube on 2: a single loss already ends the match
        (probs(0.0, 0.0, 0.0, 0.7), CubeInfo.match(3, 2, 2, Owner.ME), Level.SINGLE),
        (probs(0.0, 0.0, 0.0, 1.0), CubeInfo.match(5, 5), Level.GAMMON),
    ],
)
def test_bot_offers_to_resign_the_level_at_which_the_game_is_lost(
    p: Probabilities, info: CubeInfo, expected: Level | None
) -> None:
    assert resignation_offer(p, info) == expected


@pytest.mark.parametrize(
    ("p", "info", "level", "expected"),
    [
        (probs(0.0), MONEY, Level.SINGLE, True),
        (probs(0.0, 0.0, 0.0, 0.3), MONEY, Level.SINGLE, False),  # gammon chances: refuse
        (probs(0.0, 0.0, 0.0, 0.3), MONEY, Level.GAMMON, True),
        (probs(0.2), MONEY, Level.SINGLE, True),  # more than playing on is worth
        (probs(0.3, 0.1), CubeInfo.money(2, Owner.ME), Level.SINGLE, True),
        # a 5% chance but gammons in half the games: the resigner would lose more playing on
        (probs(0.05, 0.0, 0.0, 0.5), MONEY, Level.SINGLE, False),
        (probs(0.0, 0.0, 0.0, 0.6), CubeInfo.match(3, 1, post_crawford=True), Level.SINGLE,
         True),
        (probs(0.0, 0.0, 0.0, 0.6), CubeInfo.match(5, 7), Level.SINGLE, False),
    ],
)
def test_accept_a_resignation_when_it_gives_no_less_than_playing_on(
    p: Probabilities, info: CubeInfo, level: Level, expected: bool
) -> None:
    # p and info are the resigner's, on roll: the receiver accepts iff what the resigner
    # gives up is at least what playing on would cost it
    assert accept_resignation(p, info, level) is expected


# -- inputs ----------------------------------------------------------------------------------


def test_cube_info_from_a_match_id_is_the_dice_owner_s_view() -> None:
    key = MatchKey(cube=2, cube_owner=1, dice_owner=1, turn=1, match_length=7, score=(2, 4))
    info = CubeInfo.from_match_key(key)
    assert info == CubeInfo.match(3, 5, 2, Owner.ME)
    doubled = MatchKey.from_id("cBHgAAAAAAAE")  # GNU Backgammon: player 1 doubles, 7 points
    assert CubeInfo.from_match_key(doubled) == CubeInfo.match(7, 7)
    crawford = MatchKey(match_length=5, score=(4, 2), crawford=True)
    assert CubeInfo.from_match_key(crawford).score == MatchScore(1, 3, crawford=True)
    post = MatchKey(match_length=5, score=(4, 2))
    assert CubeInfo.from_match_key(post).score == MatchScore(1, 3, post_crawford=True)
    # the manual's 9-point example reads as Jacoby on: ignored in match play
    assert CubeInfo.from_match_key(MatchKey.from_id("QYkqASAAIAAA")).jacoby is False
    money = MatchKey(jacoby=True, cube=4, cube_owner=0)
    assert CubeInfo.from_match_key(money, beavers=True) == CubeInfo.money(
        4, Owner.ME, jacoby=True, beavers=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"value": 3}, "power of two"),
        ({"value": 2}, "centred cube shows 1"),
        ({"owner": "nobody"}, "owner"),
        ({"score": MatchScore(3, 3), "jacoby": True}, "money-play options"),
    ],
)
def test_impossible_cube_states_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(CubeError, match=message):
        CubeInfo(**kwargs)  # type: ignore[arg-type]


def test_inconsistent_probabilities_are_refused_and_rounding_is_tolerated() -> None:
    with pytest.raises(CubeError, match="inconsistent"):
        cube_decision(probs(0.5, 0.6), MONEY)
    with pytest.raises(CubeError, match="inconsistent"):
        cube_decision(probs(0.5, 0.0, 0.0, 0.6), MONEY)
    exact = cube_decision(probs(1.0000000000000002, 1.0000000000000002), MONEY)
    assert exact.no_double == pytest.approx(2.0)
    with pytest.raises(CubeError, match="efficiency"):
        cube_decision(probs(0.5), MONEY, efficiency=1.5)


def test_cube_efficiency_contact_race_and_bear_off() -> None:
    assert cube_efficiency(Position.initial()) == CONTACT_EFFICIENCY
    long_race = Position.from_points({8: 15}, {8: 15})  # 120 pips each, no contact
    assert cube_efficiency(long_race) == pytest.approx(0.7)
    short_race = Position.from_points({7: 8}, {8: 8})  # 56 pips: 0.55 + 0.07
    assert cube_efficiency(short_race) == pytest.approx(0.62)
    bear_off = Position.from_points({6: 3, 2: 2}, {5: 4})
    assert cube_efficiency(bear_off) == BEAROFF_EFFICIENCY
    assert race_efficiency(10) == 0.6 and race_efficiency(300) == 0.7


# Contact, but my side has six active checkers (ten on the ace point count as one): the
# engine's crashed class.
CRASHED = Position.from_points({1: 10, 20: 5}, {6: 5, 8: 3, 13: 5, 23: 2})


def test_the_default_efficiency_is_gnu_backgammons() -> None:
    x = DEFAULT_EFFICIENCY
    assert x == CubeEfficiency()
    assert (x.contact, x.crashed, x.bearoff) == (0.68, 0.68, 0.6)
    assert (x.race_base, x.race_per_pip, x.race_min, x.race_max) == (0.55, 0.00125, 0.6, 0.7)
    for position in (Position.initial(), CRASHED, Position.from_points({7: 8}, {8: 8})):
        assert cube_efficiency(position, x) == cube_efficiency(position)


def test_each_class_of_position_reads_its_own_efficiency() -> None:
    x = CubeEfficiency(contact=0.6, crashed=0.5, race_base=0.3, race_per_pip=0.005,
                       race_min=0.55, race_max=0.8, bearoff=0.9)
    assert cube_efficiency(Position.initial(), x) == 0.6
    assert cube_efficiency(CRASHED, x) == 0.5
    assert cube_efficiency(CRASHED) == CONTACT_EFFICIENCY  # crashed is contact by default
    assert cube_efficiency(Position.from_points({8: 15}, {8: 15}), x) == 0.8  # 0.9 capped
    assert cube_efficiency(Position.from_points({7: 8}, {8: 8}), x) == pytest.approx(0.58)
    assert cube_efficiency(Position.from_points({7: 2}, {8: 8}), x) == 0.55  # 0.37 floored
    assert cube_efficiency(Position.from_points({6: 3, 2: 2}, {5: 4}), x) == 0.9
    shifted = DEFAULT_EFFICIENCY.shifted_race(-0.05)
    assert shifted.race(100) == pytest.approx(0.625) and shifted.race(300) == pytest.approx(0.65)
    assert shifted.bearoff == pytest.approx(0.55) and shifted.contact == CONTACT_EFFICIENCY


def test_an_efficiency_out_of_range_is_refused() -> None:
    with pytest.raises(CubeError, match="efficiency"):
        CubeEfficiency(contact=1.2)
    with pytest.raises(CubeError, match="race_min"):
        CubeEfficiency(race_min=0.8, race_max=0.7)


def test_the_engine_functions_take_a_float_or_an_efficiency_per_class() -> None:
    assert efficiency_for(Position.initial()) == CONTACT_EFFICIENCY
    assert efficiency_for(Position.initial(), 0.3) == 0.3
    assert efficiency_for(CRASHED, CubeEfficiency(crashed=0.4)) == 0.4


# -- with the engine ----------------------------------------------------------------------------

# The resigner, on roll: 15 checkers in the opponent's home board, nothing borne off; the
# opponent has one checker left on its ace point. A backgammon whatever happens.
LOST = Position.from_points({22: 5, 21: 5, 20: 5}, {1: 1})


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def test_analyse_cube_evaluates_at_the_requested_ply(engine: Engine) -> None:
    d = analyse_cube(engine, Position.initial(), MONEY, plies=1)
    assert d.plies == 1 and d.efficiency == CONTACT_EFFICIENCY
    assert d.action is CubeAction.NO_DOUBLE  # nobody doubles the opening position
    assert d.probabilities == engine.evaluate(Position.initial(), plies=1)


def test_analyse_take_passes_a_hopeless_double_and_beavers_a_crazy_one(engine: Engine) -> None:
    assert analyse_take(engine, LOST.swap(), MONEY, plies=1).response is Response.PASS
    crazy = analyse_take(engine, LOST, CubeInfo.money(beavers=True), plies=1)
    assert crazy.response is Response.BEAVER


def test_analyse_cube_uses_the_efficiency_of_the_positions_class(engine: Engine) -> None:
    # the opening position, the opponent a little behind: a contact position
    position = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 23: 2})
    shipped = analyse_cube(engine, position, MONEY)
    dead = analyse_cube(engine, position, MONEY, efficiency=CubeEfficiency(contact=0.0))
    assert shipped.efficiency == CONTACT_EFFICIENCY and dead.efficiency == 0.0
    assert dead.probabilities == shipped.probabilities
    assert dead.no_double != pytest.approx(shipped.no_double)
    assert dead.no_double == pytest.approx(
        cubeful_equity(shipped.probabilities, MONEY, efficiency=0.0))
    race = analyse_cube(engine, position, MONEY, efficiency=CubeEfficiency(race_max=0.9))
    assert race.no_double == shipped.no_double  # a race value does not touch contact


def test_bot_resigns_a_backgammon_it_cannot_avoid(engine: Engine) -> None:
    assert analyse_resignation_offer(engine, LOST, MONEY, plies=2) is Level.BACKGAMMON
    assert analyse_resignation_offer(engine, Position.initial(), MONEY) is None


def test_resignation_offered_after_rolling_is_judged_after_the_resigners_best_play(
    engine: Engine,
) -> None:
    # The resigner has rolled 6-5; whatever it plays the receiver bears off next with a
    # backgammon: accept a backgammon, refuse a gammon.
    bg = analyse_resignation(engine, LOST, MONEY, Level.BACKGAMMON, roll=Roll(6, 5), plies=1)
    assert bg.accept and bg.receiver_on_roll
    assert bg.play_on_equity == pytest.approx(3.0, abs=0.01)
    gammon = analyse_resignation(engine, LOST, MONEY, Level.GAMMON, roll=Roll(6, 5), plies=1)
    assert not gammon.accept
    before = analyse_resignation(engine, LOST, MONEY, Level.BACKGAMMON, plies=2)
    assert before.accept and not before.receiver_on_roll


def test_a_finished_game_has_no_cube_decision(engine: Engine) -> None:
    over = Position.from_points({}, {1: 1})
    with pytest.raises(CubeError, match="game is over"):
        analyse_cube(engine, over, MONEY)
