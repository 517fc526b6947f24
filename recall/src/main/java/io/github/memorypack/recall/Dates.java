package io.github.memorypack.recall;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.Month;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.TextStyle;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Time in recall: a recalled turn's date label, what the relative times it says ("yesterday", "last
 * week") meant on that date, and the period a question asks about ("in May 2023", "last month"),
 * relative to the session's newest entry. English expressions only; dates in UTC, as the label says.
 */
final class Dates {

    private static final DateTimeFormatter LABEL =
            DateTimeFormatter.ofPattern("EEEE d MMMM yyyy, HH:mm 'UTC'", Locale.ENGLISH).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("EEEE d MMMM yyyy", Locale.ENGLISH);
    private static final DateTimeFormatter SHORT_DAY = DateTimeFormatter.ofPattern("d MMMM yyyy", Locale.ENGLISH);
    private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("MMMM yyyy", Locale.ENGLISH);

    private static final String MONTHS = "january|february|march|april|may|june|july|august|september|october"
            + "|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";
    private static final String WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";
    private static final String COUNT = "a|an|one|two|three|four|five|six|seven|a few|a couple of|\\d{1,2}";

    /** Relative times a turn may say, resolved against its own date. */
    private static final Pattern RELATIVE = Pattern.compile("(?i)\\b(yesterday|today|tonight|this morning|last night"
            + "|this afternoon|tomorrow|last weekend|this weekend|last week|next week|last month|next month|last year"
            + "|last (?:" + WEEKDAYS + ")|(?:" + COUNT + ") (?:day|days|week|weeks|month|months|year|years) ago)\\b");

    private static final Pattern ISO = Pattern.compile("\\b(\\d{4})-(\\d{2})-(\\d{2})\\b");
    private static final Pattern DAY_MONTH = Pattern.compile("(?i)\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?(" + MONTHS
            + ")\\b\\.?,?(?: (\\d{4}))?");
    private static final Pattern MONTH_DAY = Pattern.compile("(?i)\\b(" + MONTHS + ")\\.? (\\d{1,2})(?:st|nd|rd|th)?\\b,?"
            + "(?: (\\d{4}))?");
    private static final Pattern MONTH_YEAR = Pattern.compile("(?i)\\b(?:in|during|of|since|around|early|late|mid)[ -]("
            + MONTHS + ")\\b(?:,? (\\d{4}))?");
    private static final Pattern YEAR = Pattern.compile("(?i)\\b(?:in|during|of) (\\d{4})\\b");
    /** A question that asks for a time: when, what date, which day, month or year, how long ago, since when. */
    private static final Pattern ASKS_WHEN = Pattern.compile("(?i)^\\W*when\\b|\\bwhen(?:'s| (?:did|was|were|is|are|will"
            + "|would|do|does|had|has|have|could|can)\\b)|\\b(?:what|which) (?:date|day|month|year|week|weekend|season"
            + "|time of (?:the )?year)\\b|\\bhow long ago\\b|\\bhow long (?:has|have|had)\\b|\\bsince when\\b");

    private Dates() {
    }

    /** The label of a turn said at {@code time}: {@code Sunday 7 May 2023, 13:56 UTC}. */
    static String label(Instant time) {
        return LABEL.format(time);
    }

    /**
     * What the relative times in {@code text} meant when it was said at {@code time}, as
     * {@code "yesterday" = Saturday 6 May 2023}; empty when it says none.
     */
    static List<String> resolve(String text, Instant time) {
        LocalDate day = time.atZone(ZoneOffset.UTC).toLocalDate();
        Set<String> notes = new LinkedHashSet<>();
        Matcher matcher = RELATIVE.matcher(text);
        while (matcher.find() && notes.size() < 4) {
            String phrase = matcher.group(1).toLowerCase(Locale.ROOT);
            String meaning = meaning(phrase, day);
            if (meaning != null) {
                notes.add('"' + phrase + "\" = " + meaning);
            }
        }
        return new ArrayList<>(notes);
    }

    private static String meaning(String phrase, LocalDate day) {
        switch (phrase) {
            case "yesterday":
            case "last night":
                return DAY.format(day.minusDays(1));
            case "today":
            case "tonight":
            case "this morning":
            case "this afternoon":
                return DAY.format(day);
            case "tomorrow":
                return DAY.format(day.plusDays(1));
            case "last weekend": {
                LocalDate saturday = day.minusDays(1).with(TemporalAdjusters.previousOrSame(DayOfWeek.SATURDAY));
                return "the weekend before " + SHORT_DAY.format(day) + " (" + SHORT_DAY.format(saturday) + "–"
                        + SHORT_DAY.format(saturday.plusDays(1)) + ")";
            }
            case "this weekend":
                return "the weekend of " + SHORT_DAY.format(day.with(TemporalAdjusters.nextOrSame(DayOfWeek.SATURDAY)));
            case "last week":
                return "the week before " + SHORT_DAY.format(day);
            case "next week":
                return "the week after " + SHORT_DAY.format(day);
            case "last month":
                return MONTH.format(day.minusMonths(1));
            case "next month":
                return MONTH.format(day.plusMonths(1));
            case "last year":
                return Integer.toString(day.getYear() - 1);
            default:
                break;
        }
        if (phrase.startsWith("last ")) {
            DayOfWeek weekday = DayOfWeek.valueOf(phrase.substring(5).toUpperCase(Locale.ROOT));
            return DAY.format(day.with(TemporalAdjusters.previous(weekday)));
        }
        String[] words = phrase.split(" ");
        String unit = words[words.length - 2];
        int count = count(phrase.substring(0, phrase.length() - unit.length() - " ago".length()).strip());
        if (count < 0) {
            return "a few " + (unit.endsWith("s") ? unit : unit + "s") + " before " + SHORT_DAY.format(day);
        }
        if (unit.startsWith("day")) {
            return DAY.format(day.minusDays(count));
        }
        if (unit.startsWith("week")) {
            return "the week of " + SHORT_DAY.format(day.minusWeeks(count));
        }
        if (unit.startsWith("month")) {
            return MONTH.format(day.minusMonths(count));
        }
        return Integer.toString(day.getYear() - count);
    }

    /** The number a count word means, or -1 for a vague one ("a few", "a couple of"). */
    private static int count(String word) {
        switch (word) {
            case "a":
            case "an":
            case "one":
                return 1;
            case "two":
                return 2;
            case "three":
                return 3;
            case "four":
                return 4;
            case "five":
                return 5;
            case "six":
                return 6;
            case "seven":
                return 7;
            case "a few":
            case "a couple of":
                return -1;
            default:
                return Integer.parseInt(word);
        }
    }

    /**
     * True if {@code question} is temporal: it asks for a time ("When did…", "what date", "which day",
     * "which month or year", "how long ago", "how long has…") or names a period ({@code period}: what
     * {@link #period} found in it, or {@code null}).
     */
    static boolean temporal(String question, long[] period) {
        return period != null || ASKS_WHEN.matcher(question).find();
    }

    /**
     * The period a question asks about, {from, to} in epoch milliseconds (inclusive), relative to
     * {@code now} (the session's newest entry), or {@code null} when it names none. A named month or
     * day without a year is the latest one not after {@code now}.
     */
    static long[] period(String question, Instant now) {
        ZonedDateTime at = now.atZone(ZoneOffset.UTC);
        LocalDate today = at.toLocalDate();
        Matcher iso = ISO.matcher(question);
        if (iso.find()) {
            return day(LocalDate.of(Integer.parseInt(iso.group(1)), Integer.parseInt(iso.group(2)),
                    Integer.parseInt(iso.group(3))), 0);
        }
        Matcher dayMonth = DAY_MONTH.matcher(question);
        if (dayMonth.find()) {
            return day(dayOf(today, month(dayMonth.group(2)), Integer.parseInt(dayMonth.group(1)), dayMonth.group(3)), 1);
        }
        Matcher monthDay = MONTH_DAY.matcher(question);
        if (monthDay.find()) {
            return day(dayOf(today, month(monthDay.group(1)), Integer.parseInt(monthDay.group(2)), monthDay.group(3)), 1);
        }
        Matcher monthYear = MONTH_YEAR.matcher(question);
        if (monthYear.find()) {
            Month month = month(monthYear.group(1));
            YearMonth ym = monthYear.group(2) != null ? YearMonth.of(Integer.parseInt(monthYear.group(2)), month)
                    : latest(YearMonth.of(today.getYear(), month), YearMonth.from(today));
            return range(ym.atDay(1), ym.atEndOfMonth());
        }
        Matcher year = YEAR.matcher(question);
        if (year.find()) {
            int y = Integer.parseInt(year.group(1));
            return range(LocalDate.of(y, 1, 1), LocalDate.of(y, 12, 31));
        }
        String lower = question.toLowerCase(Locale.ROOT);
        if (lower.contains("yesterday")) {
            return day(today.minusDays(1), 0);
        }
        if (lower.contains("last weekend")) {
            LocalDate saturday = today.minusDays(1).with(TemporalAdjusters.previousOrSame(DayOfWeek.SATURDAY));
            return range(saturday, saturday.plusDays(1));
        }
        if (lower.contains("last week")) {
            LocalDate monday = today.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).minusWeeks(1);
            return range(monday, monday.plusDays(6));
        }
        if (lower.contains("this week")) {
            return range(today.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)), today);
        }
        if (lower.contains("last month")) {
            YearMonth last = YearMonth.from(today).minusMonths(1);
            return range(last.atDay(1), last.atEndOfMonth());
        }
        if (lower.contains("this month")) {
            return range(today.withDayOfMonth(1), today);
        }
        if (lower.contains("last year")) {
            return range(LocalDate.of(today.getYear() - 1, 1, 1), LocalDate.of(today.getYear() - 1, 12, 31));
        }
        return null;
    }

    private static YearMonth latest(YearMonth candidate, YearMonth now) {
        return candidate.isAfter(now) ? candidate.minusYears(1) : candidate;
    }

    private static LocalDate dayOf(LocalDate today, Month month, int dayOfMonth, String year) {
        int y = year != null ? Integer.parseInt(year) : today.getYear();
        YearMonth ym = YearMonth.of(y, month);
        LocalDate day = ym.atDay(Math.min(Math.max(1, dayOfMonth), ym.lengthOfMonth()));
        return year == null && day.isAfter(today) ? day.minusYears(1) : day;
    }

    private static Month month(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (Month month : Month.values()) {
            if (month.getDisplayName(TextStyle.FULL, Locale.ENGLISH).toLowerCase(Locale.ROOT).startsWith(lower)) {
                return month;
            }
        }
        return Month.SEPTEMBER; // "sept"
    }

    /** The day with {@code slack} days either side (a "7 May" question about a turn said on the 8th). */
    private static long[] day(LocalDate day, int slack) {
        return range(day.minusDays(slack), day.plusDays(slack));
    }

    private static long[] range(LocalDate from, LocalDate to) {
        return new long[] {from.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli(),
            to.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli() - 1};
    }
}
