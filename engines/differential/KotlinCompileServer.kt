// The warm Kotlin compiler of engines/differential/kotlin_server.py: one JVM that loads kotlinc once and
// compiles one request after another exactly as kotlinc's own main would, without paying the JVM's start and
// JIT warm-up for every file.
//
// Protocol (the client is kotlin_server.py; this runs in its sandbox, the scratch directory as working
// directory): one request per line on stdin, tab-separated: a nonce, then kotlinc's arguments. The compiler's
// stdout and stderr go to .stdout and .stderr in the working directory, like a cold compile's. When done it
// answers "<nonce> <exit status>" on stdout, and nothing else ever goes there, so anything else the client
// reads means the server is broken. On any error of its own it halts: the client restarts it.
//
// Written in Kotlin so that kotlinc itself builds it (a JRE without javac is enough), and against the
// compiler by reflection, so that one build serves every installed kotlinc version.

import java.io.BufferedReader
import java.io.FileDescriptor
import java.io.FileOutputStream
import java.io.InputStreamReader
import java.io.PrintStream
import java.lang.reflect.InvocationTargetException

fun main(args: Array<String>) {
    val protocol = PrintStream(FileOutputStream(FileDescriptor.out), true, "UTF-8")
    // Between requests the compiler's streams point at the server's own stderr (the client's log).
    val idle = System.err
    System.setOut(idle)
    try {
        serve(protocol, idle)
    } catch (error: Throwable) {
        error.printStackTrace(idle)
        idle.flush()
        Runtime.getRuntime().halt(70)
    }
}

private fun serve(protocol: PrintStream, idle: PrintStream) {
    // What kotlinc's main (CLICompiler.doMain) sets up before it compiles.
    if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true")
    if (System.getProperty("kotlin.colors.enabled") == null) System.setProperty("kotlin.colors.enabled", "true")
    try {
        Class.forName("org.jetbrains.kotlin.cli.jvm.compiler.CompatKt").getMethod("setupIdeaStandaloneExecution")
            .invoke(null)
    } catch (moved: ReflectiveOperationException) {
        // Not in every version; kotlinc then does without it too.
    }
    val cli = Class.forName("org.jetbrains.kotlin.cli.common.CLICompiler")
    val jvmCompiler = Class.forName("org.jetbrains.kotlin.cli.jvm.K2JVMCompiler").getConstructor()
    // doMain minus its System.exit: same stream (System.err), same message renderer, same handling of a
    // CompileEnvironmentException.
    val doMainNoExit = cli.getMethod("doMainNoExit", cli, Array<String>::class.java)
    val exitCode = Class.forName("org.jetbrains.kotlin.cli.common.ExitCode").getMethod("getCode")
    val requests = BufferedReader(InputStreamReader(System.`in`, Charsets.UTF_8))
    protocol.println("ready")
    while (true) {
        val line = requests.readLine() ?: return
        val fields = line.split('\t')
        val nonce = fields[0]
        val arguments = fields.drop(1).toTypedArray()
        val out = PrintStream(FileOutputStream(".stdout"), true, "UTF-8")
        val err = PrintStream(FileOutputStream(".stderr"), true, "UTF-8")
        val status: Int
        try {
            System.setOut(out)
            System.setErr(err)
            status = exitCode.invoke(doMainNoExit.invoke(null, jvmCompiler.newInstance(), arguments)) as Int
        } catch (thrown: InvocationTargetException) {
            // Escaped kotlinc's own handling: a cold kotlinc would have died of it. Let the client recompile cold.
            thrown.cause?.printStackTrace(err)
            throw thrown
        } finally {
            System.setOut(idle)
            System.setErr(idle)
            out.close()
            err.close()
        }
        protocol.println("$nonce $status")
    }
}
