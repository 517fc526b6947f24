package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Random operation sequences against a simple model of the log (append, compact, trim, replace, reopen). */
class MemoryMdSessionStorePropertiesTest {

    private record Model(List<Long> indices, List<String> texts) {
    }

    @Property(tries = 40)
    void should_match_a_simple_log_model_when_operations_run_in_any_order(
            @ForAll @Size(max = 20) List<@IntRange(max = 5) Integer> ops,
            @ForAll @Size(min = 20, max = 20) List<@IntRange(max = 3) Integer> sizes) throws IOException {
        Path dir = Files.createTempDirectory("memory-md-props");
        try {
            MemoryMdSessionStore store = open(dir);
            Model model = new Model(new ArrayList<>(), new ArrayList<>());
            long next = 0;
            int counter = 0;
            for (int step = 0; step < ops.size(); step++) {
                int size = sizes.get(step);
                switch (ops.get(step)) {
                    case 0, 1 -> { // append a batch
                        List<NewEntry> batch = new ArrayList<>();
                        for (int i = 0; i < size; i++) {
                            String text = "m" + counter++ + (i % 2 == 0 ? "\n```\n### user \u2014 x" : "");
                            batch.add(NewEntry.of(UserMessage.from(text)));
                            model.indices().add(next++);
                            model.texts().add(text);
                        }
                        store.append("s", batch);
                    }
                    case 2 -> { // compact
                        store.compact("s", "summary " + step);
                        model.indices().clear();
                        model.texts().clear();
                    }
                    case 3 -> { // trim the oldest `size` retained entries
                        if (!model.indices().isEmpty()) {
                            int drop = Math.min(size, model.indices().size());
                            long before = drop == model.indices().size() ? next : model.indices().get(drop);
                            store.trim("s", before);
                            model.indices().subList(0, drop).clear();
                            model.texts().subList(0, drop).clear();
                        }
                    }
                    case 4 -> { // replace with `size` new messages
                        List<NewEntry> batch = new ArrayList<>();
                        model.indices().clear();
                        model.texts().clear();
                        for (int i = 0; i < size; i++) {
                            String text = "r" + counter++;
                            batch.add(NewEntry.of(UserMessage.from(text)));
                            model.indices().add(next++);
                            model.texts().add(text);
                        }
                        store.replace("s", batch);
                    }
                    default -> store = open(dir); // restart
                }
                List<Entry> entries = store.read("s", 0, Integer.MAX_VALUE);
                assertThat(entries).extracting(Entry::index).containsExactlyElementsOf(model.indices());
                assertThat(entries).extracting(e -> ((UserMessage) e.message()).singleText())
                        .containsExactlyElementsOf(model.texts());
                assertThat(store.nextIndex("s")).isEqualTo(next);
                Path md = dir.resolve("s/MEMORY.md");
                if (Files.exists(md)) {
                    assertThat(MemoryMdFormat.parse(Files.readString(md))).isEqualTo(entries);
                }
            }
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    private static MemoryMdSessionStore open(Path dir) {
        // the faster mode: this property is about structure, not about fsync
        return MemoryMdSessionStore.builder().directory(dir).durability(MemoryMdSessionStore.Durability.OS_BUFFERED).build();
    }
}
