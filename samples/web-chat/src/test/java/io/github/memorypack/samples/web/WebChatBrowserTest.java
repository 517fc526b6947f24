package io.github.memorypack.samples.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.memorypack.samples.Conversation;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web chat in a real browser: the distribution's Chromium, headless, driven through its own
 * chromedriver (named explicitly: Selenium Manager cannot download anything here). Sends three
 * messages (the third after switching the live strategy), checks every shown request and token count
 * against the server's own record, and saves a screenshot to {@code target/web-chat.png}. Skipped,
 * saying so, only when no browser is installed ({@code .ci/run} installs one).
 */
class WebChatBrowserTest {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    @Test
    void should_show_the_server_requests_and_tokens_when_three_messages_are_sent_and_the_strategy_switched()
            throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "no browser: install Debian's chromium and chromium-driver (apt-get install -y chromium"
                        + " chromium-driver; .ci/run does) to run the web chat's browser test");
        List<String> lines = Conversation.builtIn().turns().stream().map(Conversation.Turn::user).toList();
        Path profile = Files.createTempDirectory("chromium-profile");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000",
                "--user-data-dir=" + profile);
        try (WebChatApp app = new WebChatApp()) {
            ChromeDriver browser = new ChromeDriver(service, options);
            try {
                WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
                browser.get(app.baseUrl() + "/");
                wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getDomAttribute("data-ready")));

                // given: a new session, summary-buffer live (the page's default)
                browser.findElement(By.id("session-name")).sendKeys("browser-test");
                browser.findElement(By.id("open-session")).click();
                wait.until(d -> d.findElement(By.id("current-session")).getText().contains("browser-test"));
                assertThat(new Select(browser.findElement(By.id("strategy"))).getFirstSelectedOption().getText())
                        .isEqualTo("summary-buffer");

                // when: two scripted lines, then the live strategy switched to window, then a third
                send(browser, wait, "Scripted line", 1);
                send(browser, wait, lines.get(1), 2);
                new Select(browser.findElement(By.id("strategy"))).selectByVisibleText("window");
                send(browser, wait, lines.get(2), 3);

                // then: every exchange shows, for every strategy, exactly the server's request and tokens
                JsonNode record = app.get("/api/sessions/browser-test/requests");
                assertThat(record).hasSize(3);
                List<WebElement> exchanges = browser.findElements(By.cssSelector("#chat .exchange"));
                assertThat(exchanges).hasSize(3);
                for (int i = 0; i < 3; i++) {
                    JsonNode server = record.get(i);
                    WebElement shown = exchanges.get(i);
                    assertThat(shown.getDomAttribute("data-live")).isEqualTo(server.get("live").asText());
                    assertThat(shown.findElement(By.cssSelector(".answer")).getText())
                            .isEqualTo(server.get("answer").asText());
                    for (String strategy : List.of("buffer", "window", "summary", "summary-buffer")) {
                        JsonNode request = server.get("requests").get(strategy);
                        WebElement box = shown.findElement(By.cssSelector(".request[data-strategy='" + strategy + "']"));
                        assertThat(box.findElement(By.cssSelector(".tokens")).getText())
                                .isEqualTo(request.get("tokens").asText());
                        assertThat(shownMessages(box)).isEqualTo(serverMessages(request));
                    }
                }
                assertThat(record.get(0).get("live").asText()).isEqualTo("summary-buffer");
                assertThat(record.get(2).get("live").asText()).isEqualTo("window");
                // the switch opened the window's request in every exchange; the third was the one sent
                WebElement third = exchanges.get(2).findElement(By.cssSelector(".request[data-strategy='window']"));
                assertThat(third.getDomAttribute("class")).contains("live", "selected", "open");
                assertThat(third.findElement(By.cssSelector(".messages")).isDisplayed()).isTrue();
                // the chart has one line per strategy, three points each
                int strategies = io.github.memorypack.samples.Strategy.memories().size();
                assertThat(browser.findElements(By.cssSelector("#chart polyline"))).hasSize(strategies);
                assertThat(browser.findElements(By.cssSelector("#chart circle"))).hasSize(3 * strategies);

                File screenshot = browser.getScreenshotAs(OutputType.FILE);
                Path target = Path.of("target", "web-chat.png");
                Files.createDirectories(target.getParent());
                Files.copy(screenshot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
                assertThat(Files.size(target)).isPositive();
            } finally {
                browser.quit();
            }
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
}
