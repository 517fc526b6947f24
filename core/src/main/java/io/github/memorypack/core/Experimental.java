package io.github.memorypack.core;

import static java.lang.annotation.ElementType.CONSTRUCTOR;
import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PACKAGE;
import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * Marks a part of Memory Pack's public API that may still change: its names, signatures, defaults
 * or observable output (such as meter names or property keys) can change incompatibly, or it can be
 * removed, in any release — even a patch release — without a deprecation period first. Everything
 * not so marked changes only as semantic versioning allows, once 1.0 is released.
 *
 * <p>On a type it covers every member of the type; on a package, every type of the package. It is
 * kept at run time, so tools can find experimental API by reflection, and it is shown in the
 * Javadoc of what it marks. It changes no behaviour: experimental API is tested like the rest.
 */
@Documented
@Inherited
@Retention(RUNTIME)
@Target({TYPE, CONSTRUCTOR, METHOD, FIELD, PACKAGE})
public @interface Experimental {
}
