package io.github.memorypack.integration;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a case ported from LangChain4j's own tests where our window answers differently on
 * purpose: the test asserts our documented behaviour, and this says what LangChain4j expects and
 * which rule of DESIGN.md makes ours differ. Every ported case either carries this or asserts
 * exactly what LangChain4j's test asserts.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface DeliberateDifference {

    /** What LangChain4j expects, and the rule behind ours. */
    String value();
}
