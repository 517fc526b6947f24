package io.github.memorypack.samples.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.memorypack.replay.Conversation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web chat in a real browser: the distribution's Chromium, headless, driven through its own
 * chromedriver (named explicitly: Selenium Manager cannot download anything here). Sends six
 * messages (the third to sixth after switching the live strategy), by when the strategies' requests
 * have parted under the demo's small limits, checks every shown request and token count
 * against the server's own record — every strategy, the recall ones among them — one colour per
 * strategy line read from the chart, the chart still in view at the bottom of the chat, and no failed
 * request (the favicon included); then restarts the app on the same folder and checks that the page
 * shows the running summaries the store kept. Saves the screenshot of the samples README
 * ({@code samples/web-chat/web-chat.png}). Skipped, saying so, only when no browser is installed
 * ({@code .ci/run} installs one).
 */
class WebChatBrowserTest {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** The screenshot the samples README shows (this module's folder is the test's working directory). */
    static final Path SCREENSHOT = Path.of("web-chat.png");
    /** Messages sent: enough for the strategies to part (WebChatTest checks they do by the fifth). */
    static final int SENT = 6;

    @Test
    void should_show_the_server_requests_and_tokens_when_messages_are_sent_and_the_strategy_switched()
            throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "no browser: install Debian's chromium and chromium-driver (apt-get install -y chromium"
                        + " chromium-driver; .ci/run does) to run the web chat's browser test");
        List<String> lines = Conversation.builtIn().turns().stream().map(Conversation.Turn::user).toList();
        Path profile = Files.createTempDirectory("chromium-profile");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000",
                "--user-data-dir=" + profile);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriver browser = new ChromeDriver(service, options);
        try {
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
            Path folder;
            Map<String, String> stored;
            try (WebChatApp app = new WebChatApp()) {
                folder = app.directory();
                browser.get(app.baseUrl() + "/");
                wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getDomAttribute("data-ready")));
                // the empty chart says so
                assertThat(chartLabel(browser)).isEqualTo("no requests yet");

                // given: a new session, summary-buffer live (the page's default)
                browser.findElement(By.id("session-name")).sendKeys("browser-test");
                browser.findElement(By.id("open-session")).click();
                wait.until(d -> d.findElement(By.id("current-session")).getText().contains("browser-test"));
                assertThat(new Select(browser.findElement(By.id("strategy"))).getFirstSelectedOption().getText())
                        .isEqualTo("summary-buffer");

                // when: two scripted lines, then the live strategy switched to window, then four more
                send(browser, wait, "Scripted line", 1);
                send(browser, wait, lines.get(1), 2);
                new Select(browser.findElement(By.id("strategy"))).selectByVisibleText("window");
                for (int n = 3; n <= SENT; n++) {
                    send(browser, wait, lines.get(n - 1), n);
                }

                // then: every exchange shows, for every strategy, exactly the server's request and tokens
                JsonNode record = app.get("/api/sessions/browser-test/requests");
                assertThat(record).hasSize(SENT);
                List<String> strategies = new ArrayList<>();
                record.get(0).get("requests").fieldNames().forEachRemaining(strategies::add);
                assertThat(strategies).contains("window+recall", "summary-buffer+recall").hasSize(8);
                List<WebElement> exchanges = browser.findElements(By.cssSelector("#chat .exchange"));
                assertThat(exchanges).hasSize(SENT);
                for (int i = 0; i < SENT; i++) {
                    JsonNode server = record.get(i);
                    WebElement shown = exchanges.get(i);
                    assertThat(shown.getDomAttribute("data-live")).isEqualTo(server.get("live").asText());
                    assertThat(shown.findElement(By.cssSelector(".answer")).getText())
                            .isEqualTo(server.get("answer").asText());
                    for (String strategy : strategies) {
                        JsonNode request = server.get("requests").get(strategy);
                        WebElement box = shown.findElement(By.cssSelector(".request[data-strategy='" + strategy + "']"));
                        assertThat(box.findElement(By.cssSelector(".tokens")).getText())
                                .isEqualTo(request.get("tokens").asText());
                        assertThat(shownMessages(box)).as("%s, exchange %d", strategy, i + 1)
                                .isEqualTo(serverMessages(request));
                    }
                }
                assertThat(record.get(0).get("live").asText()).isEqualTo("summary-buffer");
                assertThat(record.get(2).get("live").asText()).isEqualTo("window");
                // the switch opened the window's request in every exchange; from the third on it was the one sent
                WebElement third = exchanges.get(2).findElement(By.cssSelector(".request[data-strategy='window']"));
                assertThat(third.getDomAttribute("class")).contains("live", "selected", "open");
                assertThat(third.findElement(By.cssSelector(".messages")).isDisplayed()).isTrue();
                // the chart: one line per strategy, a point per request each, each line a colour of its own, as the legend says
                assertThat(browser.findElements(By.cssSelector("#chart polyline"))).hasSize(strategies.size());
                assertThat(browser.findElements(By.cssSelector("#chart circle"))).hasSize(SENT * strategies.size());
                Map<String, String> colours = new LinkedHashMap<>();
                for (String strategy : strategies) {
                    String stroke = browser.findElement(By.cssSelector("#chart polyline[data-strategy='" + strategy
                            + "']")).getDomAttribute("stroke");
                    colours.put(strategy, stroke);
                    assertThat(browser.findElement(By.cssSelector("#legend [data-strategy='" + strategy + "'] b"))
                            .getCssValue("color")).as("legend of %s", strategy).isEqualTo(rgba(stroke));
                }
                assertThat(colours.values()).as("colours of the strategy lines %s", colours).doesNotHaveDuplicates();
                assertThat(chartLabel(browser)).isEqualTo("requests #1 to #" + SENT);
                // the summaries panel shows what the store holds
                stored = summaries(app);
                assertThat(stored).containsKeys("summary");
                assertThat(shownSummaries(browser)).isEqualTo(stored);
                // the chart stays in view at the bottom of the chat (which is longer than the window)
                assertThat((Long) browser.executeScript("return document.documentElement.scrollHeight"))
                        .isGreaterThan((Long) browser.executeScript("return window.innerHeight") + 200);
                browser.executeScript("window.scrollTo(0, document.documentElement.scrollHeight)");
                wait.until(d -> inView(browser, "chart"));

                Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), SCREENSHOT,
                        StandardCopyOption.REPLACE_EXISTING);
                assertThat(Files.size(SCREENSHOT)).isPositive();
            }

            // when: the app is restarted on the same folder and the session opened again
            try (WebChatApp restarted = new WebChatApp(folder)) {
                browser.get(restarted.baseUrl() + "/");
                wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getDomAttribute("data-ready")));
                wait.until(d -> !new Select(d.findElement(By.id("sessions"))).getOptions().stream()
                        .filter(o -> o.getText().equals("browser-test")).toList().isEmpty());
                new Select(browser.findElement(By.id("sessions"))).selectByVisibleText("browser-test");
                wait.until(d -> d.findElement(By.id("current-session")).getText().contains("browser-test"));

                // then: the running summaries are the stored ones, not "none yet"
                wait.until(d -> !d.findElements(By.cssSelector("#summaries div")).isEmpty());
                assertThat(shownSummaries(browser)).isEqualTo(stored).isEqualTo(summaries(restarted));
            }

            // and: no request of the page failed (a missing favicon is a 404 in the browser's log)
            List<String> failures = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                    .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue()).map(LogEntry::getMessage).toList();
            assertThat(failures).as("the browser's warnings and errors").isEmpty();
        } finally {
            browser.quit();
        }
    }

    /** Types {@code text} (or clicks the scripted-line button when it names it) and waits for exchange n. */
    private static void send(ChromeDriver browser, WebDriverWait wait, String text, int exchanges) {
        if (text.equals("Scripted line")) {
            browser.findElement(By.id("next-line")).click();
            wait.until(d -> !d.findElement(By.id("message")).getDomProperty("value").isBlank());
        } else {
            browser.findElement(By.id("message")).sendKeys(text);
        }
        browser.findElement(By.id("send")).click();
        wait.until(d -> d.findElements(By.cssSelector("#chat .exchange")).size() == exchanges);
    }

    private static List<String> shownMessages(WebElement box) {
        List<String> lines = new ArrayList<>();
        for (WebElement item : box.findElements(By.cssSelector(".messages li"))) {
            lines.add(item.getDomAttribute("data-role") + ": "
                    + item.findElement(By.cssSelector(".text")).getDomProperty("textContent"));
        }
        return lines;
    }

    private static List<String> serverMessages(JsonNode request) {
        List<String> lines = new ArrayList<>();
        request.get("messages").forEach(m -> lines.add(m.get("role").asText() + ": " + m.get("text").asText()));
        return lines;
    }

    /** The running summaries the server has for the session, by strategy. */
    private static Map<String, String> summaries(WebChatApp app) throws Exception {
        Map<String, String> summaries = new LinkedHashMap<>();
        app.get("/api/sessions/browser-test").get("summaries").fields()
                .forEachRemaining(f -> summaries.put(f.getKey(), f.getValue().asText()));
        return summaries;
    }

    /** The summaries panel, by strategy. */
    private static Map<String, String> shownSummaries(ChromeDriver browser) {
        Map<String, String> shown = new LinkedHashMap<>();
        for (WebElement item : browser.findElements(By.cssSelector("#summaries div"))) {
            String label = item.getDomAttribute("data-strategy");
            String text = item.getDomProperty("textContent");
            shown.put(label, text.substring((label + ": ").length()));
        }
        return shown;
    }

    /** The chart's label under its axis. */
    private static String chartLabel(ChromeDriver browser) {
        List<WebElement> texts = browser.findElements(By.cssSelector("#chart text"));
        return texts.get(texts.size() - 1).getDomProperty("textContent");
    }

    /** Whether the element is wholly inside the browser's window. */
    private static boolean inView(ChromeDriver browser, String id) {
        return Boolean.TRUE.equals(browser.executeScript("const r = document.getElementById(arguments[0])"
                + ".getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight;", id));
    }

    /** {@code #rrggbb} as the browser's computed style writes it. */
    private static String rgba(String hex) {
        int rgb = Integer.parseInt(hex.substring(1), 16);
        return String.format(Locale.ROOT, "rgba(%d, %d, %d, 1)", rgb >> 16, (rgb >> 8) & 0xff, rgb & 0xff);
    }
}
