package io.github.memorypack.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** An application of nothing but auto-configuration, for {@link ClassPathTest} (no chat model). */
@SpringBootConfiguration
@EnableAutoConfiguration
class MinimalApplication {
}
