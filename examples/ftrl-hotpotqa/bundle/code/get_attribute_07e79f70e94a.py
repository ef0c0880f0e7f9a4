ANSWERS = {"step 1.2 of \"What is the name of the fight song of the university whose main campus is in Lawrence, Kansas and whose branch campuses are in the Kansas City metropolitan area?\"":"Kansas Song"}

def get_attribute_07e79f70e94a(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
